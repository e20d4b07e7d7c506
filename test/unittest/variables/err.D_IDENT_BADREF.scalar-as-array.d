/* A scalar variable indexed as an associative array. */
BEGIN
{
	x = 3;
	x[1] = 2;
}
