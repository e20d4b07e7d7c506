/* A conversion DTrace does not define: %z is not C99's here. */
BEGIN
{
	printf("%zu\n", 1);
}
