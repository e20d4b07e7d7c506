/* htonl() takes one argument. */
BEGIN
{
	trace(htonl(1, 2));
}
