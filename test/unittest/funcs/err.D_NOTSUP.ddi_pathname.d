BEGIN
{
	ddi_pathname(0, 0);
}
