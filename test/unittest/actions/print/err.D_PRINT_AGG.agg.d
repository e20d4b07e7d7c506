/* print() takes a value, not an aggregation. */
BEGIN
{
	@a = count();
	print(@a);
}
