#pragma D option quiet
#pragma D option aggsortrev

/*
 * With aggsortrev the aggregations printed at exit come last first, as
 * DTrace sorts by the aggregation before the rows.
 */
BEGIN
{
	@first = count();
	@second = sum(2);
	@third = max(3);
	exit(0);
}
