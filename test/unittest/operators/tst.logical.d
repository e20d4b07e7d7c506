#pragma D option quiet

/* Relational, logical and conditional operators. */
BEGIN
{
	printf("%d %d %d %d %d %d\n", 1 < 2, 2 <= 2, 3 > 4, 4 >= 5, 5 == 5, 5 != 5);
	printf("%d %d %d %d\n", 1 && 0, 1 || 0, 1 ^^ 1, !0);
	printf("%d %d\n", -1 < 0, 0xffffffffffffffff > 0);
	x = 0;
	y = (x != 0 && 10 / x > 1);
	printf("%d\n", y);
	printf("%s %d\n", x ? "yes" : "no", x == 0 ? 42 : 24);
	exit(0);
}
