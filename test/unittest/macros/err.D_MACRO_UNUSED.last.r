dtrace: failed to compile script err.D_MACRO_UNUSED.last.d: [D_MACRO_UNUSED] extraneous argument 'second' ($2 is not referenced)
