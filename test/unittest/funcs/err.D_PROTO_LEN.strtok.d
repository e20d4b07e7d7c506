/*
 * strtok() takes a string and its delimiters.
 */
BEGIN
{
	strtok("a");
}
