/* %d of a string is a compile-time error. */
BEGIN
{
	printf("%d\n", "abc");
}
