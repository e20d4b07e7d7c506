/*
 * panic() is destructive: after speculate() it is refused for that, as
 * DTrace refuses it, before Linux refuses it for itself.
 */
BEGIN
{
	speculate(speculation());
	panic();
}
