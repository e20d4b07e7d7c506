#pragma D option quiet
#pragma D option specsize=4k
#pragma D option cleanrate=1hz

/*
 * A committed buffer stays busy until the consumer has cleaned it (at
 * cleanrate): a speculation() meanwhile fails, as dtrace reports.
 */
BEGIN
{
	a = speculation();
	commit(a);
}

BEGIN
{
	printf("%d\n", speculation());
	exit(0);
}
