/* An aggregation is an argument no printf() conversion takes. */
BEGIN
{
	@a = count();
	printf("%d %d\n", 1, @a);
}
