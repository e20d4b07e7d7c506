dtrace: failed to compile script err.D_IDENT_UNDEF.later.d: [D_IDENT_UNDEF] line 6: failed to resolve ucaller: Unknown variable name
