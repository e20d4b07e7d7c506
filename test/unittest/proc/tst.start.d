/* @@trigger: threads 2 */
#pragma D option quiet
#pragma D option aggsortkey

/*
 * The target starts two threads: lwp-start fires in each, in its own
 * context (a thread id that is not the process's), as it first returns
 * to user space; proc:::start does not fire (no new process).
 */
proc:::lwp-start,
proc:::start
/pid == $target/
{
	@[probename, tid != pid] = count();
}

END
{
	printa("%s %d %@d\n", @);
}
