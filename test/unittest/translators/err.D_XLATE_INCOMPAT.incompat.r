dtrace: failed to compile script err.D_XLATE_INCOMPAT.incompat.d: [D_XLATE_INCOMPAT] line 6: translator member a definition uses incompatible types: "int" = "string"
