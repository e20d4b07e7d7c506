dtrace: failed to compile script err.D_IDENT_UNDEF.undef.d: [D_IDENT_UNDEF] line 4: failed to resolve nosuchthing: Unknown variable name
