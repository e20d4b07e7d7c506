/* llquantize() parameters are checked as DTrace checks them. */
BEGIN
{
	@a = llquantize(1, 1, 0, 4, 4);
}
