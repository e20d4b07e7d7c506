dtrace: failed to compile script err.D_INT_DIGIT.octal.d: [D_INT_DIGIT] line 4: constant 0129 contains invalid digit 9
