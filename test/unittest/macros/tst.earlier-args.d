/*
 * Only the last script argument must be referenced, as DTrace checks:
 * an earlier one the program does not name is no error.
 */
/* @@args: first second third */
#pragma D option quiet

BEGIN
{
	printf("%s\n", $$3);
	exit(0);
}
