/* An integer (even 0) is not assigned to a double. */
double d;

BEGIN
{
	d = 0;
}
