/* @@trigger: fixture contend mutex */
#pragma D option quiet

/*
 * A thread of the target sleeps on a mutex another of its threads holds
 * for at least 100 ms (two readers of one pseudo-terminal):
 * adaptive-block fires once it has the mutex, with the time it slept.
 */
int seen;

lockstat:::adaptive-block
/pid == $target && !seen/
{
	seen = 1;
	printf("%s %s slept %d\n", probename, execname, args[1] >= 50000000);
	printf("%s\n", args[0] != NULL ? "a mutex" : "no mutex");
}

proc:::exit
/pid == $target/
{
	exit(0);
}
/* @@needs: lock_tracepoints|fentry */
