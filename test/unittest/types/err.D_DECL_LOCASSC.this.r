dtrace: failed to compile script err.D_DECL_LOCASSC.this.d: [D_DECL_LOCASSC] line 2: associative arrays may not be declared as local variables: a
