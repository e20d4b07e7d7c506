dtrace: failed to compile script err.D_XLATE_NOCONV.noconv.d: [D_XLATE_NOCONV] line 10: translator does not define conversion for member: b
