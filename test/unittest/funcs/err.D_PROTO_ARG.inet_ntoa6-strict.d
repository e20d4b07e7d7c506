/*
 * inet_ntoa6()'s second argument is an integer constant.
 */
BEGIN
{
	n = 1;
	trace(inet_ntoa6((struct in6_addr *)alloca(16), n));
}
