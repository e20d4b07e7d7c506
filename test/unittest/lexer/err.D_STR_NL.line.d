/* A string cut by a newline: DTrace reports the line after it. */
BEGIN
{
	s = "abc
";
}
