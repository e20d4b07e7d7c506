/* %@ is printa()'s conversion: printf() has no aggregation for it. */
BEGIN
{
	printf("%@d", 1);
	exit(0);
}
