/* sum() adds numbers. */
BEGIN
{
	@ = sum("one");
}
