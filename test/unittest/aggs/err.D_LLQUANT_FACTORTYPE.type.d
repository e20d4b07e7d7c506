/* llquantize() parameters are checked as DTrace checks them. */
BEGIN
{
	@a = llquantize(1, timestamp, 0, 4, 10);
}
