#pragma D option quiet

/*
 * An aggregation keyed by stack() prints each stack one frame a line,
 * indented by stackindent, then its value; every call from one place
 * is one key.
 */
/* @@trigger: getpid 7 */

syscall::getpid:entry
/pid == $target/
{
	@[stack()] = count();
}
