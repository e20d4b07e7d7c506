/*
 * A syntax error at an identifier shows the rest of its line, as
 * DTrace's lexer leaves it in the identifier's text.
 */
typedef nosuchtype new_int;

BEGIN
{
	exit(0);
}
