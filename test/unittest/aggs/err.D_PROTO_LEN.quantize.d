/* quantize() takes a value and an increment, no more. */
BEGIN
{
	@ = quantize(1, 2, 3);
}
