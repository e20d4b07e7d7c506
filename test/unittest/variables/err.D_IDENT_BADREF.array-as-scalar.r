dtrace: failed to compile script err.D_IDENT_BADREF.array-as-scalar.d: [D_IDENT_BADREF] line 5: associative array 'x' may not be referenced as scalar
