#pragma D option quiet

/* Pointer arithmetic is scaled by the size of what the pointer points to. */
BEGIN
{
	printf("%d %d %d\n", (int *)0 + 1, (long *)0 + 3, (char *)0 + 3);
	printf("%d %d\n", 2 + (short *)0, (int *)64 - 2);
	printf("%d %d\n", (long *)64 - (long *)0, (char *)64 - (char *)60);
	printf("%d %d\n", &((int *)16)[2], &((struct foo { int a; long b; } *)0)->b);
	printf("%d %d %d\n", sizeof (int *), sizeof (char), sizeof (long long));
	exit(0);
}
