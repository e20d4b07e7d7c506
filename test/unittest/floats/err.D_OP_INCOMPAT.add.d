/* D adds integers and pointers: a floating-point operand is refused. */
double d;

BEGIN
{
	d + 1;
}
