#pragma D option quiet
#pragma D option specsize=64

/*
 * A speculative record that does not fit its buffer (specsize) is a
 * speculative drop; the buffer's other records are still committed.
 */
BEGIN
{
	a = speculation();
}

BEGIN
{
	speculate(a);
	printf("%s%s%s%s%s\n", execname, execname, execname, execname, execname);
}

BEGIN
{
	speculate(a);
	printf("%d\n", 7);
}

BEGIN
{
	commit(a);
}

BEGIN
{
	exit(0);
}
