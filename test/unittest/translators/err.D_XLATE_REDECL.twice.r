dtrace: failed to compile script err.D_XLATE_REDECL.twice.d: [D_XLATE_REDECL] line 15: translator from struct in * to struct out has already been declared
