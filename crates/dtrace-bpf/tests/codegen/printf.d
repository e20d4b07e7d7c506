/* printf records its arguments; the format stays with the consumer. */
BEGIN
{
	printf("%d %s\n", 42, "x");
	exit(0);
}
