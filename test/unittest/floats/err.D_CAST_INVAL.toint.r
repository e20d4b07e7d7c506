dtrace: failed to compile script err.D_CAST_INVAL.toint.d: [D_CAST_INVAL] line 6: invalid cast expression: "double" to "int"
