dtrace: failed to compile script err.D_PRAGMA_INVAL.in-declaration.d: [D_PRAGMA_INVAL] line 6: invalid attributes specified by #pragma attributes
