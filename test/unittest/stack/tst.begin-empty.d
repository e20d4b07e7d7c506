/*
 * BEGIN and END fire in dtrace's own system call: their kernel stack
 * holds no frame of what is traced, so stack() there is empty (and
 * stackdepth 0).
 */
#pragma D option quiet

BEGIN
{
	stack();
	printf("depth %d\n", stackdepth);
	exit(0);
}

END
{
	printf("depth %d\n", stackdepth);
}
