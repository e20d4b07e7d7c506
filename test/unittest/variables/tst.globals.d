#pragma D option quiet

/* Global scalars keep their values from clause to clause. */
int n;
int never;

BEGIN
{
	n = 5;
	s = "str";
	implicit = n * 2;
}

BEGIN
{
	printf("%d %s %d %d\n", n, s, implicit, never);
	exit(0);
}
