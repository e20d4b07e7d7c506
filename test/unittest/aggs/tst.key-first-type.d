/*
 * An aggregation's key types are its first use's: a later key of a wider
 * integer type is converted to them, and the same values are one key.
 */
#pragma D option quiet

BEGIN
{
	@[(int32_t)1, 2] = count();
	@[(int64_t)1, 2] = count();
	exit(0);
}
