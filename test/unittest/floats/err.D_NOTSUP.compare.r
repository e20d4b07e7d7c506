dtrace: failed to compile script err.D_NOTSUP.compare.d: [D_NOTSUP] line 7: operator == on values of type double is not supported
