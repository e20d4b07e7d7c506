dtrace: failed to compile script err.D_IDENT_UNDEF.badbuiltin.d: [D_IDENT_UNDEF] line 4: failed to resolve curthreadx: Unknown variable name
