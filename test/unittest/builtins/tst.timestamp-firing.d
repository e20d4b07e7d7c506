/*
 * timestamp is one value for a whole probe firing: read twice in a
 * clause, and again in the next clause of the same firing, it does not
 * move; the next firing reads the clock again.
 */
#pragma D option quiet
/* One CPU: the counter is a global, stepped by one firing at a time. */
#pragma D option cpu=0

int n;

tick-10ms
/n < 2/
{
	a = timestamp;
	b = timestamp;
	printf("%d ", a == b);
}

tick-10ms
/n < 2/
{
	printf("%d\n", timestamp == a);
	last = a;
}

tick-10ms
/n++ == 2/
{
	printf("%d\n", timestamp > last);
	exit(0);
}
