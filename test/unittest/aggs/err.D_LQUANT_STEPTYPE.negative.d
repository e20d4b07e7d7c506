/* lquantize()'s step is a positive constant. */
BEGIN
{
	@ = lquantize(1, 0, 10, -1);
}
