#pragma D option quiet

/*
 * Distributions whose counts near 2^63: their bars and their order are
 * worked out as DTrace works them out, in long doubles, never wrapping:
 * "big" sorts after "small", and its bars share out its whole weight.
 */
BEGIN
{
	@["big"] = quantize(1, (1 << 62));
	@["big"] = quantize(2, (1 << 62));
	@["big"] = quantize(4, (1 << 62));
	@["small"] = quantize(1, 3);
	exit(0);
}
