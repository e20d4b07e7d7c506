/* D variables have no address. */
BEGIN
{
	x = 1;
	trace(&x);
}
