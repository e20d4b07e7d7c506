/* A translation is not a value to trace. */
BEGIN
{
	trace(curpsinfo);
}
