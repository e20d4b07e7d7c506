/* An associative array named without an index. */
BEGIN
{
	x[1] = 2;
	x = 3;
}
