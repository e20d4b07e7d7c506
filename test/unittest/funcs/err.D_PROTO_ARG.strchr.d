BEGIN
{
	strchr("abc", "b");
}
