/* An inline is not in a probe clause: args[] means nothing there. */
inline int first = args[0];

BEGIN
{
	trace(first);
}
