dtrace: failed to compile script err.D_CAST_INVAL.xlate.d: [D_CAST_INVAL] line 13: invalid cast expression: "pointer to translated data" to "uintptr_t"
