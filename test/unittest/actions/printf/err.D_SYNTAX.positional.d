/* Positional arguments are not part of D's printf. */
BEGIN
{
	printf("%2$d %1$d\n", 1, 2);
}
