/* A struct that is only declared, never defined. */
BEGIN
{
	trace(((struct undefined_here *)0)->a);
}
