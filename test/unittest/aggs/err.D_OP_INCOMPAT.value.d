/* An aggregation has no value to add to. */
BEGIN
{
	@a = count();
	x = @a + 1;
}
