/*
 * rand(): pseudo-random non-negative ints; three in a row are not all
 * the same (the chance that they are is 2^-62).
 */
#pragma D option quiet

BEGIN
{
	a = rand();
	b = rand();
	c = rand();
	printf("%s %s\n", a != b || b != c ? "varies" : "constant",
	    a >= 0 && b >= 0 && c >= 0 ? "non-negative" : "negative");
	exit(0);
}
