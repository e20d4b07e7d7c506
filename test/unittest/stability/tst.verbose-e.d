/*
 * -e -v: the program's report, then each description with what the
 * probes it matches say: BEGIN alone names no provider (Unstable), a
 * system call's description its function (Private/Private/ISA), with
 * the call's argument types.
 */
/* @@runtest-opts: -e -v */

BEGIN
{
	trace(1);
}

syscall::read:entry
{
	trace(arg0);
}
