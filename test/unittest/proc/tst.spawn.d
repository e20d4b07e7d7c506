/* @@trigger: spawn /bin/true */
#pragma D option quiet

/*
 * The target creates a child, which runs /bin/true and exits: the proc
 * provider's probes, their psinfo_t arguments translated from the
 * kernel's task.
 */
proc:::create
/pid == $target/
{
	printf("create %d %d\n", args[0]->pr_ppid == pid, args[0]->pr_pid != pid);
}

proc:::exec-success
/ppid == $target/
{
	printf("exec-success %s %d\n", execname, curpsinfo->pr_ppid == ppid);
}

proc:::lwp-exit
/ppid == $target/
{
	printf("lwp-exit %s\n", execname);
}

proc:::exit
/ppid == $target/
{
	printf("exit %s\n", execname);
}
