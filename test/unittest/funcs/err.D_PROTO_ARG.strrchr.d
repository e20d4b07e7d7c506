/*
 * strrchr() looks for a character, not a string.
 */
BEGIN
{
	strrchr("abc", "c");
}
