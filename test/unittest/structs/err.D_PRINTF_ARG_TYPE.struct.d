/* No printf conversion takes a struct. */
BEGIN
{
	printf("%d\n", *curthread);
}
