#pragma D option quiet

/*
 * substr() as DTrace cuts: from an index (negative: from the end), for
 * a length (negative: leave that many off the end; none: to the end);
 * a start before the beginning shortens the part, one past the end
 * gives the empty string.
 */
BEGIN
{
	s = "hello";
	printf("%s|%s|%s|%s|%s|%s|%s|%s\n", substr(s, 1, 3), substr(s, -3),
	    substr(s, 2), substr(s, -10, 7), substr(s, 10), substr(s, 1, -1),
	    substr(s, 0, 100), substr(s, -10, 2));
	exit(0);
}
