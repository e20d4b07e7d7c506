dtrace: failed to compile script err.D_DECL_ENOFLOW.next-line.d: [D_DECL_ENOFLOW] line 7: enumerator 'toobig' value overflows INT_MAX (2147483647)
