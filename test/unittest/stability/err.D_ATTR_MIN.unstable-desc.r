dtrace: failed to compile script err.D_ATTR_MIN.unstable-desc.d: [D_ATTR_MIN] line 12: attributes for clause (Unstable/Unstable/Common) are less than predefined minimum
