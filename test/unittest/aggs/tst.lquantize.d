#pragma D option quiet

/* lquantize(): linear buckets with underflow and overflow rows. */
BEGIN
{
	@l = lquantize(3, 0, 10, 2);
	@l = lquantize(-1, 0, 10, 2);
	@l = lquantize(11, 0, 10, 2);
	@l = lquantize(4, 0, 10, 2);
	@m["k"] = lquantize(50, 0, 100, 10);
	exit(0);
}
