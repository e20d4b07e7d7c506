/* A predicate on a builtin guards the clause: one syscall tracepoint. */
syscall::getpid:entry
/pid == 1234/
{
	trace(arg0);
}
