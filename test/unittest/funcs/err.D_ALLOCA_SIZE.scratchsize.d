/*
 * A constant size larger than the clause may allocate is refused:
 * scratchsize rounds up to 8 bytes.
 */
#pragma D option scratchsize=60

BEGIN
{
	p = alloca(64);
	q = copyin(0, 65);
}
