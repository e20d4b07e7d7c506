#pragma D option quiet

/*
 * A factor of 2 with 4 steps: orders with fewer values than steps have
 * one bucket per value; the increment argument adds its weight.
 */
BEGIN
{
	@a = llquantize(1, 2, 0, 4, 4);
	@a = llquantize(3, 2, 0, 4, 4);
	@a = llquantize(13, 2, 0, 4, 4, 3);
	exit(0);
}
