/* A distribution printed by %@ in a format is the table alone: the format's text is around it. */
#pragma D option quiet

BEGIN
{
	@q = quantize(3);
	@l = lquantize(5, 0, 10, 5);
	printa("[%@d]\n", @q);
	printa("<%@d>\n", @l);
	exit(0);
}
