/* @@runtest-opts: -Z -q */

/* With -Z a description matching nothing is allowed. */
syscall::nosuchsyscall:entry
{
}

BEGIN
{
	trace("ok");
	exit(0);
}
