dtrace: failed to compile script err.D_IDENT_BADREF.scalar-as-array.d: [D_IDENT_BADREF] line 5: scalar 'x' may not be referenced as associative array
