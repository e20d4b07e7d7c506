dtrace: failed to compile script err.D_ARGS_MULTI.glob.d: [D_ARGS_MULTI] line 4: args[ ] may not be referenced because probe description syscall::open*:entry matches an unstable set of probes
