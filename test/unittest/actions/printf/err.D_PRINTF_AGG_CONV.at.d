/* %@ belongs to printa() only. */
BEGIN
{
	printf("%@d\n", 1);
}
