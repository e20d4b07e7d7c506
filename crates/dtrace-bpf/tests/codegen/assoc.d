/* An associative array with a tuple key of an integer and a string. */
BEGIN
{
	a[1, "x"] = 2;
	trace(a[1, "x"]);
	exit(0);
}
