/* A kernel enum's tag is in scope only against that enum. */
BEGIN
{
	trace(PIDTYPE_TGID);
}
