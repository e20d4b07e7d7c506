dtrace: failed to compile script err.D_NOTSUP.compare.d: [D_NOTSUP] line 6: operator == on values of type long double is not supported
