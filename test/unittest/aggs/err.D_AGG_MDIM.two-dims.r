dtrace: failed to compile script err.D_AGG_MDIM.two-dims.d: [D_AGG_MDIM] line 4: improper attempt to reference @a as a multi-dimensional array
