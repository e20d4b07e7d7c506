/*
 * A constant index past a declared array's end is refused when the
 * program is compiled.
 */
int a[5];

BEGIN
{
	trace(a[5]);
}
