dtrace: failed to compile script err.D_ARR_BOUNDS.const.d: [D_ARR_BOUNDS] line 9: index outside array bounds: 5, max is 5
