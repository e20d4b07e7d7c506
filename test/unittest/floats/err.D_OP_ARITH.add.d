/* Floating-point values are not arithmetic in D. */
double d;

BEGIN
{
	d + 1;
}
