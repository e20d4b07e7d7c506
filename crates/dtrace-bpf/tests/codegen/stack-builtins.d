/*
 * caller and stackdepth: bpf_get_stack of the kernel stack, skipping the
 * BPF frames a raw tracepoint program's stack begins with (2, and 1 more
 * in the error subprogram); none for a tracepoint or perf event program.
 * In END (and BEGIN), run in dtrace's own system call, the stack is
 * empty: zeroes, no helper.
 */
syscall::write:entry
{
	trace(caller);
	trace(*(int *)arg0);
}

syscall::read:entry
{
	trace(stackdepth);
}

END
{
	trace(stackdepth);
}

ERROR
{
	trace(caller);
	trace(ucaller);
}
