dtrace: failed to compile script err.D_XLATE_NOCONV.argc.d: [D_XLATE_NOCONV] line 7: translator does not define conversion for member: pr_argc
