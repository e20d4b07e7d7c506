dtrace: failed to compile script err.D_DECL_ARRSUB.negative.d: [D_DECL_ARRSUB] line 2: positive integral constant expression or tuple signature expected as array declaration subscript
