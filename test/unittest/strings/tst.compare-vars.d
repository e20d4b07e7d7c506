/*
 * Strings in variables compared with each other: where they differ in
 * the first word, past it, in the last byte a string can hold (beyond
 * it, strings are cut), where one
 * ends inside a word whose later bytes held a longer string before, and
 * bytes above 0x7f (compared unsigned, as DTrace compares them). A
 * clause may make many such comparisons.
 */
#pragma D option quiet
#pragma D option strsize=20

BEGIN
{
	a = "abcdefghijklmnopqrs";
	b = "abcdefghijklmnopqrs";
	c = "abcdefghijklmnopqrt";
	d = "abcdefghijXlmnopqrs";
	e = "abcdefghijklmnopqrstuvwxyz";
	f = "abcdefghijklmnopqrst!!!";
	g = "abcdefghijklmnop";
	g = "abc";
	h = "abc";
	i = "\xc3\xa9";
	j = "z";
	printf("%d %d %d %d\n", a == b, a != b, a < c, c > a);
	printf("%d %d %d %d\n", a < d, d < a, a <= b, a >= b);
	printf("%d %d\n", e == f, e == a);
	printf("%d %d %d %d\n", g == h, g < a, a > g, g <= h);
	printf("%d %d\n", i > j, j < i);
	n = 0;
	n += a == b; n += a == b; n += a == b; n += a == b;
	n += a < c; n += a < c; n += a < c; n += a < c;
	n += c > d; n += c > d; n += c > d; n += c > d;
	n += g == h; n += g == h; n += g == h; n += g == h;
	n += a != d; n += a != d; n += a != d; n += a != d;
	n += h < a; n += h < a; n += h < a; n += h < a;
	printf("%d\n", n);
	exit(0);
}
