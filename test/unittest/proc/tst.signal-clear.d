/* @@trigger: fixture sigwait */
#pragma D option quiet

/*
 * The target blocks SIGUSR1, sends it to itself and takes it with
 * sigwaitinfo(2): signal-send fires, then signal-clear with the signal
 * (10); it is never delivered, so signal-handle does not fire.
 */
proc:::signal-send
/args[1]->pr_pid == $target && args[2] == 10/
{
	printf("%s %d\n", probename, args[2]);
}

proc:::signal-clear,
proc:::signal-handle
/pid == $target/
{
	printf("%s %d\n", probename, args[0]);
}
