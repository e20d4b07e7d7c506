#pragma D option quiet

/*
 * llquantize(): an underflow row below factor^low, linear steps within
 * each order of magnitude (never more than nsteps), and an overflow row
 * at factor^(high + 1); the rows around the data only.
 */
BEGIN
{
	@a = llquantize(0, 10, 0, 2, 20);
	@a = llquantize(7, 10, 0, 2, 20);
	@a = llquantize(7, 10, 0, 2, 20);
	@a = llquantize(35, 10, 0, 2, 20);
	@a = llquantize(99, 10, 0, 2, 20);
	@a = llquantize(100, 10, 0, 2, 20);
	@a = llquantize(5000, 10, 0, 2, 20);
	exit(0);
}
