/* A string comparison against a constant (execname). */
syscall::getpid:entry
/execname == "cat"/
{
	trace(1);
}
