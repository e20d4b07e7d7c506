/* A ] with no [ before it: DTrace's lexer counts them. */
BEGIN
{
	trace(1]);
}
