/* Arrays are not assignable as a whole, as in C. */
int a[3];
int b[3];

BEGIN
{
	a = b;
}
