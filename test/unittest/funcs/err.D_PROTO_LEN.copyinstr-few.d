/* Too few arguments for a prototype with an optional one: "at least". */
BEGIN
{
	trace(copyinstr());
}
