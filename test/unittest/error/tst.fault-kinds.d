/* The ERROR probe's arg4 says what the fault was, named by unistd.d's DTRACEFLT_* constants. */
#pragma D option quiet

ERROR
{
	printf("%s\n", arg4 == DTRACEFLT_BADADDR ? "bad address" : arg4 == DTRACEFLT_DIVZERO ? "divide-by-zero" : "other");
}

BEGIN
{
	*(char *)8;
}

BEGIN
{
	x = 0;
	y = 1 / x;
}

BEGIN
{
	exit(0);
}
