/* A string is not added to. */
BEGIN
{
	s = "a";
	s += 1;
}
