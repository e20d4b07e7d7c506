/* Struct keys of associative arrays are not supported. */
BEGIN
{
	a[*curthread] = 1;
}
