/* Each length modifier takes the C type it names. */

#pragma D option quiet

BEGIN
{
	printf("%ld %lu %lx %llx %llu %lld\n", (long)-1, 2ul, (unsigned long)255,
	    (uint64_t)4096, (unsigned long long)5, -6ll);
	printf("%hd %hu %hx %lc %ld\n", (short)-7, (unsigned short)8,
	    (unsigned short)0xbeef, 65, 9ll);
	exit(0);
}
