#pragma D option quiet

/*
 * The aggregation flag of a printa() conversion may stand after its
 * width and precision, as in DTrace (`%7@d` is `%@7d`), as scripts of
 * the DTrace book write it.
 */
BEGIN
{
	@c[1, "read"] = count();
	@c[1, "read"] = count();
	@c[22, "write"] = count();
	@s["x"] = sum(1234);
	exit(0);
}

END
{
	printa("%5u %12s %7@d\n", @c);
	printa("[%-6s|%-8@x]\n", @s);
	printa("[%-6s|%08@d]\n", @s);
}
