dtrace: failed to compile script err.D_ATTR_MIN.probefunc.d: [D_ATTR_MIN] line 10: attributes for scalar probefunc (Private/Private/Unknown) are less than predefined minimum
