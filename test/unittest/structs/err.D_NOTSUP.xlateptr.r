dtrace: failed to compile script err.D_NOTSUP.xlateptr.d: [D_NOTSUP] line 5: variables of type psinfo_t * (a translated pointer) are not supported; store the translated value (*p) instead
