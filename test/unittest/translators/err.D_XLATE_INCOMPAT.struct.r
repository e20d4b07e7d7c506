dtrace: failed to compile script err.D_XLATE_INCOMPAT.struct.d: [D_XLATE_INCOMPAT] line 12: translator member s definition uses incompatible types: "struct in" = "struct other"
