/*
 * In a D string, \a \b \f \n \r \t \v, \\, \", octal and hex escapes
 * are C's; a backslash before anything else stays, with what follows
 * (\? and \' among them), and \x takes every hex digit after it.
 */
#pragma D option quiet

BEGIN
{
	printf("[%s]\n", "tab\there, quote\" backslash\\ octal\101 hex\x42");
	printf("[%s]\n", "kept: \? \' \q \x0043");
	exit(0);
}
