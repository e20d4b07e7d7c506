/* printf( )'s first argument is a string, by its prototype. */
BEGIN
{
	printf(1);
}
