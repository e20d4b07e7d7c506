/* %d takes an integer, as DTrace's printf does: a pointer is printed with %p. */
BEGIN
{
	printf("%d\n", curthread);
}
