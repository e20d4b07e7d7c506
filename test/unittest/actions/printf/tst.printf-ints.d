#pragma D option quiet

/*
 * Integer conversions with flags, width and precision. %d of an unsigned
 * value (0x8000000000000000 is an unsigned long long) prints it unsigned.
 */
BEGIN
{
	printf("[%d] [%i] [%u] [%x] [%X] [%o]\n", -42, 42, -1, 255, 255, 8);
	printf("[%5d] [%-5d] [%05d] [%+d] [% d] [%.3d]\n", 42, 42, 42, 42, 42, 7);
	printf("[%#x] [%#o] [%8.4x] [%-8X|]\n", 255, 8, 0xab, 0xcd);
	printf("[%*d] [%-*d] [%.*d]\n", 6, 1, 6, 2, 4, 3);
	printf("[%c%c%c] [%%] [%ld] [%lld] [%lu]\n", 'a', 66, 0x43, 1L, -2LL, 3UL);
	printf("[%d] [%u]\n", 0x8000000000000000, 0xffffffffffffffff);
	printf("[%x] [%d]\n", (char)-1, (unsigned short)65535);
	exit(0);
}
