/* An aggregation that was never defined. */
BEGIN
{
	@a;
}
