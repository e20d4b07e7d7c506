dtrace: failed to compile script err.D_IDENT_UNDEF.enum-tag.d: [D_IDENT_UNDEF] line 4: failed to resolve PIDTYPE_TGID: Unknown variable name
