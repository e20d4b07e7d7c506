#pragma D option quiet

/*
 * normalize() divides what is printed of an aggregation (scalars, each
 * row of a distribution, the %@ conversions), denormalize() undoes it;
 * the values themselves are kept, and sorting follows them.
 */
BEGIN
{
	@a["x"] = sum(1000);
	@a["y"] = sum(250);
	@av = avg(600);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(8);
	@q = quantize(8);
	normalize(@a, 10);
	normalize(@av, 3);
	normalize(@q, 2);
	printa("%s %@d\n", @a);
	denormalize(@a);
	printa("%s %@d\n", @a);
	normalize(@a, 100);
	exit(0);
}
