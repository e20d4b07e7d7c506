/*
 * strtoll() takes its base as an integer.
 */
BEGIN
{
	strtoll("12", "10");
}
