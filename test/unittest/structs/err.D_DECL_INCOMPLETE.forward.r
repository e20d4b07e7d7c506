dtrace: failed to compile script err.D_DECL_INCOMPLETE.forward.d: [D_DECL_INCOMPLETE] line 2: incomplete struct/union/enum struct nosuch: x
