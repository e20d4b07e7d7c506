dtrace: failed to compile script err.D_DECL_INCOMPLETE.before-error.d: [D_DECL_INCOMPLETE] line 6: incomplete struct/union/enum struct inner: i
