#pragma D option quiet

/*
 * stddev() prints the integer standard deviation: 2, 4, 4, 4, 5, 5, 7, 9
 * have a mean of 5 and a deviation of 2; a negative value squares like
 * its absolute value, and keys get one each.
 */
BEGIN
{
	@s = stddev(2); @s = stddev(4); @s = stddev(4); @s = stddev(4);
	@s = stddev(5); @s = stddev(5); @s = stddev(7); @s = stddev(9);
	@n = stddev(-10); @n = stddev(10);
	@k["one"] = stddev(1);
	@k["spread"] = stddev(100); @k["spread"] = stddev(300);
	@big = stddev(3000000000); @big = stddev(-3000000000);
	exit(0);
}
