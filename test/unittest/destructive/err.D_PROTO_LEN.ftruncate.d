/*
 * ftruncate() takes no argument.
 */
BEGIN
{
	ftruncate(1);
}
