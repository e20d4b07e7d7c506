/* An increment must be a number. */
BEGIN
{
	@ = quantize(1, "one");
}
