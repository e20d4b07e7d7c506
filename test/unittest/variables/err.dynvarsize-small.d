/*
 * dynvarsize must hold one element of every dynamic variable (its key
 * and value): smaller, tracing cannot start.
 */
#pragma D option dynvarsize=15

BEGIN
{
	a[1] = 1;
	exit(0);
}
