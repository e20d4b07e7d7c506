/*
 * cleanpath() backing up over several components in a row, past the
 * start of the path, and at its end.
 */
#pragma D option quiet

BEGIN
{
	printf("[%s] [%s]\n", cleanpath("/a/b/c/../../d/./e/../f"),
	    cleanpath("/x/../../../y"));
	printf("[%s] [%s]\n", cleanpath("a/b/c/../.."),
	    cleanpath("/usr/lib/../lib64/./libc.so"));
	exit(0);
}
