/* Pointers may be added to and subtracted, not multiplied. */
BEGIN
{
	trace((int *)0 * 2);
}
