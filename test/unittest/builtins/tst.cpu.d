#pragma D option quiet

/* The test runs dtrace on CPU 0, where BEGIN fires. */
BEGIN
{
	printf("%d\n", cpu);
	exit(0);
}
