/* void has no size. */
BEGIN
{
	trace(sizeof (void));
}
