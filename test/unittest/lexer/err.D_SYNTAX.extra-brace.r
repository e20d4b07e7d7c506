dtrace: failed to compile script err.D_SYNTAX.extra-brace.d: [D_SYNTAX] line 6: extra } in input stream
