dtrace: failed to compile script err.D_ACT_SPEC.panic.d: [D_ACT_SPEC] line 8: destructive actions may not follow speculate( )
