/*
 * #line sets the number of the next line, with or without -C.
 */
BEGIN
{
#line 100
	exit(1, 2);
}
