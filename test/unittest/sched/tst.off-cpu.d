/* @@trigger: comm 7864747374 */
#pragma D option quiet

/*
 * sched:::off-cpu fires as the target (named "xdtst") leaves the CPU for
 * the last time, in its context, with the next thread's lwpsinfo_t and
 * psinfo_t.
 */
sched:::off-cpu
/pid == $target && execname == "xdtst"/
{
	@[execname, args[0]->pr_lwpid == args[1]->pr_pid || args[1]->pr_pid != 0] = count();
}

END
{
	printa("%s %d\n", @);
}
