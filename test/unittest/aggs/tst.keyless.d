#pragma D option quiet

/*
 * Aggregations with no keys: one that is never updated prints nothing;
 * one updated with zero prints 0; clear() keeps it at 0 and trunc()
 * removes it until it is updated again (in END).
 */
BEGIN
{
	@zero = sum(0);
	@cleared = count();
	@cleared = count();
	@gone = max(7);
	@back = min(3);
	@q = quantize(1);
	@av = avg(0);
	clear(@cleared);
	trunc(@gone);
	trunc(@back);
	exit(0);
}

BEGIN
/0/
{
	@never = count();
}

END
{
	@back = min(9);
}
