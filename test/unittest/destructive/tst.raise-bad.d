/*
 * raise() of a number that is no signal is an illegal operation: the
 * ERROR probe fires and tracing goes on.
 */
/* @@runtest-opts: -w */
#pragma D option quiet

BEGIN
{
	raise(65);
}

BEGIN
{
	raise(-1);
}

BEGIN
{
	printf("next\n");
	exit(0);
}
