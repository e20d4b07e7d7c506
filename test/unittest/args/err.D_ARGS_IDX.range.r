dtrace: failed to compile script err.D_ARGS_IDX.range.d: [D_ARGS_IDX] line 4: index 4 is out of range for syscall::openat:entry args[ ]
