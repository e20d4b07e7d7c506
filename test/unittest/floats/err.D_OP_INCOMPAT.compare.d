/* A double is compared only with a double, as in DTrace. */
double d;

BEGIN
{
	trace(d < 1);
}
