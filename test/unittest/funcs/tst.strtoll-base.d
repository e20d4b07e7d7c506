/*
 * strtoll() with a base outside 2..36 is an illegal operation: the ERROR
 * probe fires and the next clause runs.
 */
#pragma D option quiet

BEGIN
{
	printf("%d\n", strtoll("12", 37));
}

BEGIN
{
	printf("next\n");
	exit(0);
}
