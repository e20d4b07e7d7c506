/* Unary minus needs an arithmetic operand; a double is not one. */
double d;

BEGIN
{
	-d;
}
