/*
 * copyin() of an address the process has not mapped is an invalid
 * address.
 */
#pragma D option quiet

BEGIN
{
	copyin(0, 4);
}

BEGIN
{
	exit(0);
}
