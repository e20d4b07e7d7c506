dtrace: failed to compile script err.D_XLATE_NOCONV.pr_nice.d: [D_XLATE_NOCONV] line 7: translator does not define conversion for member: pr_nice
