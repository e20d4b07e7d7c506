/* @@trigger: getpid 5 */
#pragma D option quiet

/* An enabling of every system call entry sees the target's getpid calls. */
syscall:::entry
/pid == $target && probefunc == "getpid"/
{
	@[probefunc] = count();
}
