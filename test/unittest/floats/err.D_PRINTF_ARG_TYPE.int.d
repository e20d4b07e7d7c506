/* %f takes a float, double or long double, not an int. */
BEGIN
{
	printf("%f\n", 1);
}
