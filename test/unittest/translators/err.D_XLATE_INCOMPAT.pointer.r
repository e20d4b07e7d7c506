dtrace: failed to compile script err.D_XLATE_INCOMPAT.pointer.d: [D_XLATE_INCOMPAT] line 7: translator member p definition uses incompatible types: "char *" = "char"
