/*
 * Thread-local variables are not held to dynvarsize's minimum (DTrace
 * keeps them in at least one chunk): a tiny size still lets one be set.
 */
#pragma D option quiet
#pragma D option dynvarsize=5

BEGIN
{
	self->a = 1;
	trace(self->a);
	exit(0);
}
