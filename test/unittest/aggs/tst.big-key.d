/*
 * An aggregation whose key is larger than the kernel's hash keys (512
 * bytes: here two strings at the default strsize, and three) works as
 * any other: equal keys are one row, rows print, sort and truncate.
 */
#pragma D option quiet

BEGIN
{
	a = "first";
	b = "second";
	c = "third";
	@two[a, b] = count();
	@two[a, b] = count();
	@two[b, a] = count();
	@three[a, b, c] = sum(10);
	@three[c, b, a] = sum(20);
	@three[a, b, c] = sum(1);
	exit(0);
}

END
{
	printa("%s %s %@d\n", @two);
	printa("%s %s %s %@d\n", @three);
	trunc(@three, 1);
	printa("%s %s %s %@d\n", @three);
}
