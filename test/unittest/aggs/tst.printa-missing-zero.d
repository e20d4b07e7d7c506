/*
 * printa() of several aggregations prints each key any of them has; an
 * aggregation without the key shows the value of its function over no
 * data: 0, or a distribution of zero counts.
 */
#pragma D option quiet

BEGIN
/0/
{
	@q[1] = quantize(0);
}

BEGIN
{
	@a[1] = sum(10);
	@b[2] = count();
	printa("%d: %@d %@d\n", @a, @b);
	printa("%d: %@d %@d%@d\n", @a, @b, @q);
	exit(0);
}
