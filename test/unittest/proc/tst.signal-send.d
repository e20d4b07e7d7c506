/* @@trigger: signal */
#pragma D option quiet

/*
 * proc:::signal-send fires in the sender (a child "kill" of the target)
 * with the receiver (a child "sleep") and the signal (SIGUSR1, 10).
 */
proc:::signal-send
/ppid == $target && args[2] == 10/
{
	printf("%s %d %s %d %d\n", execname, args[2], args[1]->pr_fname,
	    args[1]->pr_ppid == ppid, args[0]->pr_lwpid == args[1]->pr_pid);
}
