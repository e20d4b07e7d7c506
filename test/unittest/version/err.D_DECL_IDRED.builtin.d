/*
 * In this compiler's D (1.13), strstr() is a subroutine: a variable of
 * that name is a redeclaration.
 */
int strstr;

BEGIN
{
	exit(0);
}
