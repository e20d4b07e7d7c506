dtrace: failed to compile script err.D_OP_INCOMPAT.value.d: [D_OP_INCOMPAT] line 5: operands have incompatible types: "dynamic variable" + "int"
