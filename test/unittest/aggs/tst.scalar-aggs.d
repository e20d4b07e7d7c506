#pragma D option quiet

/* sum, min, max and avg, with and without keys. */
BEGIN
{
	@s = sum(10);
	@s = sum(-3);
	@mn = min(5);
	@mn = min(-4);
	@mx = max(5);
	@mx = max(-4);
	@av = avg(7);
	@av = avg(8);
	@k["x"] = sum(1);
	@k["y"] = sum(2);
	exit(0);
}
