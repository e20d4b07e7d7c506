/*
 * bcopy() takes a source, a destination and a size.
 */
BEGIN
{
	bcopy(0, 0);
}
