/* An aggregating function must be the value of an aggregation. */
BEGIN
{
	avg(1);
}
