dtrace: failed to compile script err.D_OP_INCOMPAT.string-add.d: [D_OP_INCOMPAT] line 5: operands have incompatible types: "string" += "int"
