/*
 * strstr() searches a string.
 */
BEGIN
{
	strstr(1, "a");
}
