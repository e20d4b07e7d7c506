/*
 * rindex() takes at most three arguments.
 */
BEGIN
{
	rindex("a", "b", 1, 2);
}
