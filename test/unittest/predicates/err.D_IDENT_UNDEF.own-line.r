dtrace: failed to compile script err.D_IDENT_UNDEF.own-line.d: [D_IDENT_UNDEF] line 6: failed to resolve nosuchvar: Unknown variable name
