/* ! needs a scalar operand. */
double d;

BEGIN
{
	trace(!d);
}
