/*
 * -x oformat=json: one JSON object a line, one for each probe firing
 * with its records (printf() text, trace() values, printa() rows), one
 * for each aggregation printed at exit.
 */
/* @@runtest-opts: -x oformat=json */

BEGIN
{
	printf("hello %d\n", 5);
	trace(7);
	trace("str\"ing");
	@c["x"] = count();
	@c["y"] = count();
	@c["y"] = count();
	@q = quantize(3);
	printa(@c);
	@s[1, "two"] = sum(-3);
	@a = avg(10);
}

BEGIN
{
	exit(0);
}
