/* %Lf takes a long double only. */
double d;

BEGIN
{
	printf("%Lf\n", d);
}
