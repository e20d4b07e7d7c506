/* fi_pathname needs the kernel's path walk, which tracing cannot call. */
syscall::read:entry
{
	trace(fds[arg0].fi_pathname);
}
