dtrace: failed to compile script err.D_AGG_FUNC.not-agg.d: [D_AGG_FUNC] line 4: @a must be assigned the result of an aggregating function
