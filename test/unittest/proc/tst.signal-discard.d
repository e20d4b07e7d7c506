/* @@trigger: fixture signals discard */
#pragma D option quiet

/*
 * The target ignores SIGUSR1 and sends it to itself: signal-send fires
 * in the sender, then signal-discard, with the receiving process and
 * the signal (10).
 */
proc:::signal-send,
proc:::signal-discard
/args[1]->pr_pid == $target && args[2] == 10/
{
	printf("%s %d %d\n", probename, args[2], args[0]->pr_lwpid == args[1]->pr_pid);
}
