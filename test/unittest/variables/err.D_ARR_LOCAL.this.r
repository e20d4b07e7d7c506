dtrace: failed to compile script err.D_ARR_LOCAL.this.d: [D_ARR_LOCAL] line 4: local variables may not be used as associative arrays: a
