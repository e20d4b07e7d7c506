#pragma D option quiet
/* One CPU: tick-1ms moves to another CPU when its CPU stalls (a guest's
   CPU waiting its turn), and the output's order counts on one. */
#pragma D option cpu=0

/*
 * Firings of printf()s alone take the consumer's plain path, the others
 * its general one: the output keeps the firings' order, and both print
 * every conversion alike.
 */
BEGIN
{
	a = -5;
	b = 255;
	c = (char)-1;
	u = (unsigned char)200;
	big = 0xffffffffffffffffULL;
	i = 0;
}

tick-1ms
/i < 3/
{
	printf("%d %i %u %d %u|", a - i, b + i, c, c, u);
	printf("%5d|%-4u|%x|%#o|%s|%d\n", i, i, b, b, "str", big);
}

tick-1ms
/i < 3/
{
	trace(i);
	printf(" traced\n");
}

tick-1ms
/i < 3/
{
	printf("%d %d %hd %lld %u\n", i * 1000, (char)(b + 1 + i), (short)(a - i), (long long)a * 1000000000, big);
	i++;
}

tick-1ms
/i == 3/
{
	exit(0);
}
