#pragma D option quiet

/*
 * %d and %i print an unsigned argument as unsigned, as DTrace's printf
 * does: the conversion follows the argument's type.
 */
BEGIN
{
	y = (unsigned char)255;
	printf("%d %i\n", y, y);
	printf("%d %d\n", (uint64_t)-1, (unsigned short)65535);
	printf("%d %d\n", -1, (char)-1);
	exit(0);
}
