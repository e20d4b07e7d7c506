/* Too many arguments for a prototype with an optional one: "at most". */
BEGIN
{
	trace(copyinstr(arg0, 1, 2));
}
