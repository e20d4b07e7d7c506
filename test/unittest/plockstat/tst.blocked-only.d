/*
 * The blocked probes alone: the futex waits that mark a call blocked are
 * watched though no block probe is enabled.
 */
/* @@trigger: fixture ucontend */
#pragma D option quiet

plockstat$target:::mutex-blocked
{
	printf("%s %s taken=%d\n", probefunc, probename, arg1);
}

plockstat$target:::rw-blocked
{
	printf("%s %s is_writer=%d taken=%d\n", probefunc, probename, arg1, arg2);
}
