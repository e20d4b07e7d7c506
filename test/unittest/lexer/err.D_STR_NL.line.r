dtrace: failed to compile script err.D_STR_NL.line.d: [D_STR_NL] line 5: newline encountered in string literal
