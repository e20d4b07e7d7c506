#pragma D option quiet

/* Associative arrays with integer, string and tuple keys. */
BEGIN
{
	a[1] = 10;
	a[2] = 20;
	b["x"] = 1;
	b["y"] = 2;
	c["k", 3] = 33;
	c["k", 4] = 44;
	a[1] += 5;
	printf("%d %d %d %d %d %d %d\n", a[1], a[2], a[3], b["x"], b["y"], c["k", 3], c["k", 4]);
	c["k", 3] = 0;
	printf("%d\n", c["k", 3]);
	exit(0);
}
