/* llquantize() parameters are checked as DTrace checks them. */
BEGIN
{
	@a = llquantize(1, 10, 4, 4, 10);
}
