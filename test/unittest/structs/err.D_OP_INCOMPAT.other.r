dtrace: failed to compile script err.D_OP_INCOMPAT.other.d: [D_OP_INCOMPAT] line 8: operands have incompatible types: "struct a" = "struct b"
