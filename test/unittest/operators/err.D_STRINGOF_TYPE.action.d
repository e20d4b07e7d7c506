/* stringof() needs a value. */
BEGIN
{
	trace(stringof(trace(1)));
}
