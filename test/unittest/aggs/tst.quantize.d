#pragma D option quiet

/* quantize(): power-of-two buckets, negative values and zero. */
BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(5);
	@q = quantize(-3);
	@q = quantize(1000);
	@q = quantize(1000);
	exit(0);
}
