#pragma D option quiet

/*
 * Pointer arithmetic is scaled by the size of what the pointer points to.
 * (Pointers are printed as integers: %d takes integers only, as in DTrace.)
 */
BEGIN
{
	printf("%d %d %d\n", (uintptr_t)((int *)0 + 1), (uintptr_t)((long *)0 + 3),
	    (uintptr_t)((char *)0 + 3));
	printf("%d %d\n", (uintptr_t)(2 + (short *)0), (uintptr_t)((int *)64 - 2));
	printf("%d %d\n", (long *)64 - (long *)0, (char *)64 - (char *)60);
	printf("%d %d\n", (uintptr_t)&((int *)16)[2],
	    (uintptr_t)&((struct foo { int a; long b; } *)0)->b);
	printf("%d %d %d\n", sizeof (int *), sizeof (char), sizeof (long long));
	exit(0);
}
