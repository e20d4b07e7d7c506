/* read's first argument is an unsigned int, openat's an int. */
syscall::read:entry,
syscall::openat:entry
{
	trace(args[0]);
}
