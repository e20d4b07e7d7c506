/*
 * aggsize must hold one entry of every aggregation: smaller, tracing
 * cannot start.
 */
#pragma D option aggsize=8

BEGIN
{
	@ = count();
	exit(0);
}
