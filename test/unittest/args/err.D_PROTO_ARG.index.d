/* The index of args[] is an integer constant. */
syscall::openat:entry
{
	trace(args[arg0]);
}
