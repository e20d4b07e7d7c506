/* An aggregation takes one list of keys. */
BEGIN
{
	@a[1][2] = count();
}
