/* tick-N: a perf event program with a once-per-period gate. */
tick-1s
{
	trace(walltimestamp);
}
