/* printa() of one aggregation: every %@ conversion prints its value. */
#pragma D option quiet

BEGIN
{
	@ = sum(5);
	printa("%@d %@d %@d\n", @);
	exit(0);
}
