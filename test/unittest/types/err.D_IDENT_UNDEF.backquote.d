/*
 * A backquote makes a name a kernel symbol's, even with nothing after it:
 * as in DTrace, no symbol is named so.
 */
BEGIN
{
	trace(sizeof(`));
}
