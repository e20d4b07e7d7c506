/* printa() with a format takes an aggregation after it. */
BEGIN
{
	printa("%d");
}
