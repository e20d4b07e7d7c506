/* ++ needs a scalar operand. */
double d;

BEGIN
{
	d++;
}
