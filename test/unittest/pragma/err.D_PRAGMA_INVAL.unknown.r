dtrace: failed to compile script err.D_PRAGMA_INVAL.unknown.d: [D_PRAGMA_INVAL] line 2: invalid D pragma: frobnicate
