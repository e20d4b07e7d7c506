#pragma D option quiet

/*
 * An array held in a variable is indexed by any integer: within its
 * bounds it is read and written, past them the index is an invalid
 * address (the ERROR probe fires) and nothing beyond the variable is
 * touched.
 */

int a[5];
int b[3];

BEGIN
{
	i = 4;
	a[i] = 12345678;
	b[0] = 7;
	printf("%d %d\n", a[i], b[0]);
}

BEGIN
{
	i = 5;
	trace(a[i]);
}

ERROR
{
	printf("fault %d %d\n", arg4, b[0]);
	exit(0);
}
