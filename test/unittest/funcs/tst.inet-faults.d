#pragma D option quiet

/*
 * inet_ntop() of a family that is neither AF_INET nor AF_INET6 is an
 * illegal operation; an address that cannot be read is an invalid
 * address. Each fires ERROR and tracing goes on.
 */
BEGIN
{
	trace(inet_ntop(7, (void *)0));
}

BEGIN
{
	printf("%s\n", inet_ntoa((ipaddr_t *)0));
}

BEGIN
{
	exit(0);
}
