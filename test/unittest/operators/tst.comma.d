/* The comma operator: a statement of several expressions, each evaluated in turn. */
#pragma D option quiet

BEGIN
{
	a = 1, b = a + 1, c = a + b;
	printf("%d %d %d\n", a, b, c);
	exit(0);
}
