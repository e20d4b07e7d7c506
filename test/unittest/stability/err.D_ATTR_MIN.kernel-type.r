dtrace: failed to compile script err.D_ATTR_MIN.kernel-type.d: [D_ATTR_MIN] line 6: attributes for type struct task_struct (Private/Private/Unknown) are less than predefined minimum
