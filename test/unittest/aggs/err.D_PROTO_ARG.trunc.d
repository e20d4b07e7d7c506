/* trunc()'s count is an integer: an aggregation is not. */
BEGIN
{
	@a = count();
	trunc(@a, @a);
}
