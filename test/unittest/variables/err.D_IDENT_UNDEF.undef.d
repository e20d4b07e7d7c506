/* An unknown identifier used as a value. */
BEGIN
{
	trace(nosuchthing + 1);
}
