/* A float is not a double: assignment needs the same type. */
float f;
double d;

BEGIN
{
	d = f;
}
