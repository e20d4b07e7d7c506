/* An aggregation's value is not a key. */
BEGIN
{
	@a = count();
	@[@a] = count();
}
