#pragma D option quiet

/*
 * lltostr() of run-time values (both extremes, zero, negatives) and of
 * a constant.
 */
BEGIN
{
	min = -9223372036854775807 - 1;
	max = 9223372036854775807;
	z = 0;
	n = -1234567;
	printf("%s %s %s %s %s %s\n", lltostr(min), lltostr(max), lltostr(z),
	    lltostr(n), lltostr(-n + 1), lltostr(42));
	exit(0);
}
