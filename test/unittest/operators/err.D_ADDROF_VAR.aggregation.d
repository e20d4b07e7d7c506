/* An aggregation has no address. */
BEGIN
{
	@a = count();
	trace(&@a);
}
