/*
 * cleanpath(): "//", "/./" and "/../" resolved as DTrace resolves them
 * (a final "/.." too; "..x" is a name like any other).
 */
#pragma D option quiet

BEGIN
{
	printf("[%s] [%s] [%s]\n", cleanpath("/foo/bar/../baz"),
	    cleanpath("/foo//bar/./baz/"), cleanpath("/a/.."));
	printf("[%s] [%s] [%s]\n", cleanpath("/foo/..bar/.x"),
	    cleanpath("a/b/../../c"), cleanpath(""));
	printf("[%s] [%s]\n", cleanpath("/foo/bar/.."), cleanpath("/../x"));
	exit(0);
}
