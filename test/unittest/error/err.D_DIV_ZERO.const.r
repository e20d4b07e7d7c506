dtrace: failed to compile script err.D_DIV_ZERO.const.d: [D_DIV_ZERO] line 4: expression contains division by zero
