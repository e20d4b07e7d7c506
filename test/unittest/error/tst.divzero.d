#pragma D option quiet

/* Division by zero at run time is a fault, reported and survived. */
BEGIN
{
	n = 0;
	printf("%d\n", 10 / n);
}

BEGIN
{
	printf("%d\n", 10 % (n + 3));
	exit(0);
}
