/* %ld takes a long: an int must be cast. */
BEGIN
{
	printf("%ld\n", 1);
}
