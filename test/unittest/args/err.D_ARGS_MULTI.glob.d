/* open and openat take different arguments: args[] has no one type. */
syscall::open*:entry
{
	trace(args[1]);
}
