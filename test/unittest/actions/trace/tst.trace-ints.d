/*
 * trace() of integers of each size: 8- and 4-byte values print signed,
 * 2- and 1-byte values unsigned, right-aligned in DTrace's widths.
 */
BEGIN
{
	trace(1);
	trace(-1);
	trace((int)-7);
	trace((short)-2);
	trace((char)200);
	trace(0x7fffffffffffffff);
	exit(0);
}
