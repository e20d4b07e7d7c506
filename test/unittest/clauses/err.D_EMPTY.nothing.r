dtrace: failed to compile script err.D_EMPTY.nothing.d: [D_EMPTY] line 2: empty D program translation unit
