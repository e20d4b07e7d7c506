dtrace: failed to compile script err.D_IDENT_UNDEF.alone.d: [D_IDENT_UNDEF] line 4: failed to resolve @a: Unknown variable name
