dtrace: failed to compile script err.D_MACRO_UNDEF.missing.d: [D_MACRO_UNDEF] line 5: macro argument $2 is not defined
