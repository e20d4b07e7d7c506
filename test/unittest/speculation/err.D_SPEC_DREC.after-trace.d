/* DTrace's rules of speculation: each misuse is refused with its tag. */
int a;

BEGIN
{
	trace(1); speculate(a);
}
