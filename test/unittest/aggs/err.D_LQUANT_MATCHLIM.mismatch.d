/* An lquantize() must repeat its first use's parameters. */
BEGIN
{
	@a = lquantize(1, 0, 10, 1);
	@a = lquantize(1, 0, 20, 1);
}
