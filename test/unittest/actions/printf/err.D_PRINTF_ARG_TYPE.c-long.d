/* %c takes a char, short or int. */
BEGIN
{
	printf("%c\n", 65L);
}
