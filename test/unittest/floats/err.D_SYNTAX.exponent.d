/* D has no floating-point constants, in exponent form either. */
BEGIN
{
	x = 1e5;
}
