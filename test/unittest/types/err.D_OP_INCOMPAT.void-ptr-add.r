dtrace: failed to compile script err.D_OP_INCOMPAT.void-ptr-add.d: [D_OP_INCOMPAT] line 6: operands have incompatible types: "void *" + "int"
