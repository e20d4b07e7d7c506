#pragma D option quiet
/* One CPU: tick-1ms moves to another CPU when its CPU stalls (a guest's
   CPU waiting its turn), and the clauses below count on one at a time. */
#pragma D option cpu=0
#pragma D option nspec=64
#pragma D option specsize=4k

/*
 * nspec=64: 64 speculations at once, each committed in turn, their
 * records in the order of the commits.
 */
int i, j;

tick-1ms
/i < 64/
{
	s[i] = speculation();
	i++;
}

tick-1ms
/i == 64 && j < 64/
{
	speculate(s[j]);
	printf("%d ", s[j]);
}

tick-1ms
/i == 64 && j < 64/
{
	commit(s[j]);
	j++;
}

tick-1ms
/j == 64/
{
	printf("\n");
	exit(0);
}
