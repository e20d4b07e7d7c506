/* Linux has no interrupt priority levels. */
BEGIN
{
	trace(ipl);
}
