/* %k prints a stack, and nothing else. */
BEGIN
{
	printf("%k", 1);
}
