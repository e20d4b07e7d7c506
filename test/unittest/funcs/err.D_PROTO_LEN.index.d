BEGIN
{
	index("abc");
}
