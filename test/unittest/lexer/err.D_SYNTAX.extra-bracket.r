dtrace: failed to compile script err.D_SYNTAX.extra-bracket.d: [D_SYNTAX] line 4: extra ] in input stream
