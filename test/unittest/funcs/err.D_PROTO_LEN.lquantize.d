/* A prototype with varargs: "at least" the fixed ones. */
BEGIN
{
	@ = lquantize(1, 0);
}
