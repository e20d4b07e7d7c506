/* openat has four arguments: args[4] does not exist. */
syscall::openat:entry
{
	trace(args[4]);
}
