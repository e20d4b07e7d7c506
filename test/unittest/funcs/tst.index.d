/*
 * index() and rindex(): zero-based positions, -1 where the string is
 * not, and DTrace's (Perl's) rules for the start position: index()
 * clamps a negative one to 0 and past the end finds only "" (at the
 * end); rindex() clamps one past the end to the end and before the
 * start finds only "" (at 0).
 */
#pragma D option quiet

BEGIN
{
	s = "fooeyfooeyfoo";
	printf("%d %d %d %d\n", index(s, "foo"), rindex(s, "foo"),
	    index(s, "eyf"), rindex(s, "eyf"));
	printf("%d %d %d %d\n", index(s, "foo", 1), index(s, "foo", -5),
	    rindex(s, "foo", 9), rindex(s, "foo", 99));
	printf("%d %d %d %d\n", index(s, ""), rindex(s, ""), index(s, "", 99),
	    rindex(s, "", -1));
	printf("%d %d %d %d\n", index(s, "x"), rindex(s, "x", -1),
	    index(s, "foo", 13), index("", ""));
	printf("%d %d\n", index(s, "oofoo"), rindex(s, "fooeyfooeyfoo"));
	exit(0);
}
