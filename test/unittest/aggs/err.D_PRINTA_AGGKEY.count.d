/* Aggregations printed together share their keys: their number... */
BEGIN
{
	@a = count();
	@b[1] = count();
	printa(@a, @b);
}
