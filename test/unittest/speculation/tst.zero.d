#pragma D option quiet
#pragma D option specsize=4k

/*
 * ID 0 is invalid but accepted: speculate(0) records nothing, commit(0)
 * and discard(0) do nothing; the one buffer (nspec=1) goes to the first
 * speculation(), the others fail, as dtrace reports.
 */
BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
	printf("%d %d %d\n", a, b, c);
}

BEGIN
{
	speculate(b);
	printf("never\n");
}

BEGIN
{
	commit(0);
	discard(0);
}

BEGIN
{
	exit(0);
}
