/* ntohs() takes an integer, not a string. */
BEGIN
{
	trace(ntohs("80"));
}
