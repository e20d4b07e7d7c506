/* DTrace's rules of speculation: each misuse is refused with its tag. */
int a;

BEGIN
{
	speculate(a); @c = count();
}
