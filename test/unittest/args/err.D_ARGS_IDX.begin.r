dtrace: failed to compile script err.D_ARGS_IDX.begin.d: [D_ARGS_IDX] line 4: index 0 is out of range for :::BEGIN args[ ]
