/* A few enabled system calls: one tracepoint program each. */
syscall::read:entry,
syscall::write:entry
{
	trace(arg2);
}
