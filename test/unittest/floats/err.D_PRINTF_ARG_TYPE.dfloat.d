/* %d takes an integer, not a float. */
float f;

BEGIN
{
	printf("%d\n", f);
}
