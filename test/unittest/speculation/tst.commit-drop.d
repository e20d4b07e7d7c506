#pragma D option quiet
#pragma D option bufsize=4k
#pragma D option strsize=2k
#pragma D option specsize=64k

/*
 * A commit whose data does not fit in the principal buffer copies
 * nothing and counts a drop there.
 */
BEGIN
{
	a = speculation();
	s = "speculative";
}

BEGIN
{
	speculate(a);
	printf("%s\n", s);
}

BEGIN
{
	speculate(a);
	printf("%s\n", s);
}

BEGIN
{
	speculate(a);
	printf("%s\n", s);
}

BEGIN
{
	commit(a);
}

BEGIN
{
	exit(0);
}
