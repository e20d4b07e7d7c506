BEGIN
{
	rand(1);
}
