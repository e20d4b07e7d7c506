/* An aggregation's keys keep one signature. */
BEGIN
{
	@a["x"] = count();
	@a["x", 1] = count();
}
