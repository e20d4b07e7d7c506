/* @@trigger: spawn /bin/sleep 0.1 */
#pragma D option quiet

/*
 * The target's child sleep(1) blocks, then is woken by its timer:
 * sched:::wakeup names it through its lwpsinfo_t and psinfo_t.
 */
sched:::wakeup
/args[1]->pr_ppid == $target && args[1]->pr_fname == "sleep"/
{
	@[args[1]->pr_fname, args[0]->pr_lwpid == args[1]->pr_pid] = count();
}

END
{
	printa("%s %d\n", @);
}
