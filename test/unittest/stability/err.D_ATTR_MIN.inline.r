dtrace: failed to compile script err.D_ATTR_MIN.inline.d: [D_ATTR_MIN] line 4: attributes for scalar curthread (Stable/Private/Common) are less than predefined minimum
