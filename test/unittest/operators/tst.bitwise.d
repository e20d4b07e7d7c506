#pragma D option quiet

/* Bitwise and shift operators. */
BEGIN
{
	printf("%x %x %x %x\n", 0xf0 & 0x3c, 0xf0 | 0x0f, 0xff ^ 0x0f, ~0);
	printf("%d %d %d\n", 1 << 10, 1024 >> 3, -16 >> 2);
	printf("%x\n", 0xffffffffffffffff >> 60);
	exit(0);
}
