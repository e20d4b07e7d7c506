/*
 * chill() takes a number of nanoseconds.
 */
BEGIN
{
	chill("1s");
}
