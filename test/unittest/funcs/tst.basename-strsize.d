/*
 * basename() and dirname() many times in one clause at the largest usual
 * strsize: each scan is one loop the verifier checks once.
 */
/* @@runtest-opts: -x strsize=4096 */
#pragma D option quiet

BEGIN
{
	printf("%s %s %s %s\n", basename("/a/b/c.d"), dirname("/a/b/c.d"),
	    basename("//"), dirname("x"));
	printf("%s %s %s %s\n", basename("/usr/lib/"), dirname("/usr/lib/"),
	    basename(""), dirname("/"));
	exit(0);
}
