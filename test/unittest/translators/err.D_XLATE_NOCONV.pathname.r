dtrace: failed to compile script err.D_XLATE_NOCONV.pathname.d: [D_XLATE_NOCONV] line 4: translator does not define conversion for member: fi_pathname
