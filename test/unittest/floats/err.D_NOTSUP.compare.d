/* Floating-point values are not compared (D has no floating-point
   arithmetic to compare them with). */
double d;

BEGIN
{
	trace(d == d);
}
