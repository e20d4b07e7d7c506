/* @@trigger: threads 3 */
#pragma D option quiet

/*
 * The target starts and joins three threads: three lwp-create probes
 * with the new thread's lwpsinfo_t and psinfo_t, three lwp-exit, and
 * one exit when the process ends.
 */
proc:::lwp-create
/pid == $target/
{
	@c["lwp-create", args[0]->pr_lwpid != tid && args[1]->pr_pid == pid] = count();
}

proc:::lwp-exit
/pid == $target/
{
	@c["lwp-exit", tid != pid] = count();
}

proc:::exit
/pid == $target/
{
	@c["exit", tid == pid] = count();
}

END
{
	printa("%s %d %@d\n", @c);
}
