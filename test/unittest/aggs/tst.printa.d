#pragma D option quiet

/* printa() with a format: keys in order, %@ for the value. */
BEGIN
{
	@a["x", 1] = count();
	@a["y", 2] = count();
	@a["y", 2] = count();
	@b["x", 1] = sum(100);
	@b["y", 2] = sum(5);
	exit(0);
}

END
{
	printa("%s %d %@d\n", @a);
	printa("[%-3s|%3d|%@8x]\n", @b);
	printa(@a);
}
