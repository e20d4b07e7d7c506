BEGIN
{
	progenyof("x");
}
