/* Not a built-in variable. */
BEGIN
{
	trace(curthreadx);
}
