/* x += 1 reads x, which was never assigned. */
BEGIN
{
	x += 1;
}
