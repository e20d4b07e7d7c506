/*
 * cleanpath() takes a path.
 */
BEGIN
{
	cleanpath();
}
