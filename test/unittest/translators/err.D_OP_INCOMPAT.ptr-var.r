dtrace: failed to compile script err.D_OP_INCOMPAT.ptr-var.d: [D_OP_INCOMPAT] line 5: operands have incompatible types: "psinfo_t *" = "lwpsinfo_t *"
