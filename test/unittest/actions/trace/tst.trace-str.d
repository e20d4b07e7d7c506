/* trace() of strings pads them to DTrace's column when not quiet. */
BEGIN
{
	trace("hello");
	trace(execname);
	exit(0);
}
