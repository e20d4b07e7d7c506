/*
 * A user stack of no frames.
 */
BEGIN
{
	ustack(0);
}
