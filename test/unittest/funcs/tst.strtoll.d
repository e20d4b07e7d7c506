/*
 * strtoll(): blanks, a sign, with base 16 a 0x prefix, then the digits of
 * the base (10 unless given) up to the first that is not one.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", strtoll("123"), strtoll(" \t-42xyz"),
	    strtoll("+7"), strtoll("0x1f", 16));
	printf("%d %d %d %d\n", strtoll("1F", 16), strtoll("777", 8),
	    strtoll("zZ", 36), strtoll("1012", 2));
	printf("%d %d %d %d\n", strtoll(""), strtoll("abc"),
	    strtoll("9223372036854775807"), strtoll("0x", 16));
	exit(0);
}
