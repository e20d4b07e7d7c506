/* A string, but not a constant: the format must be known when compiling. */
BEGIN
{
	x = "%d\n";
	printf(x, 1);
}
