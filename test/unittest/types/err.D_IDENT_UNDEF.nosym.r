dtrace: failed to compile script err.D_IDENT_UNDEF.nosym.d: [D_IDENT_UNDEF] line 4: failed to resolve `no_such_kernel_symbol_at_all: Unknown symbol name
