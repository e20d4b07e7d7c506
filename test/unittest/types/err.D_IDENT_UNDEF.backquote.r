dtrace: failed to compile script err.D_IDENT_UNDEF.backquote.d: [D_IDENT_UNDEF] line 7: failed to resolve `: Unknown symbol name
