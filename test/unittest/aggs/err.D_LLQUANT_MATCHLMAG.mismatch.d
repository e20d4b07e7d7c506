/* An llquantize() must repeat its first use's parameters. */
BEGIN
{
	@a = llquantize(1, 10, 0, 4, 10);
	@a = llquantize(1, 10, 1, 4, 10);
}
