dtrace: failed to compile script err.D_ARR_BOUNDS.member.d: [D_ARR_BOUNDS] line 7: index outside array bounds: 16, max is 16
