dtrace: failed to compile script err.D_ATTR_MIN.inline-value.d: [D_ATTR_MIN] line 10: attributes for scalar mypid (Stable/Private/Common) are less than predefined minimum
