/* A long double is held by reference: it is not compared. */
long double d;

BEGIN
{
	trace(d == d);
}
