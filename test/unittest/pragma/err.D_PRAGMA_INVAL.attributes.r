dtrace: failed to compile script err.D_PRAGMA_INVAL.attributes.d: [D_PRAGMA_INVAL] line 2: invalid attributes specified by #pragma attributes
