/* One aggregation, one function. */
BEGIN
{
	@a = stddev(1);
	@a = avg(1);
}
