dtrace: failed to compile script err.D_UNKNOWN.signed-unsigned.d: [D_UNKNOWN] line 2: failed to resolve type signed unsigned int: Unknown type name
