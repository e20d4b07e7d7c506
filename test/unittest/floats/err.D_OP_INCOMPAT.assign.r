dtrace: failed to compile script err.D_OP_INCOMPAT.assign.d: [D_OP_INCOMPAT] line 7: operands have incompatible types: "double" = "float"
