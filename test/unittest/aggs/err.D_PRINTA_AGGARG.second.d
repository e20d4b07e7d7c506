/* printa()'s aggregations are its arguments after the format: the first is #2. */
BEGIN
{
	printa("%@d\n", 123);
}
