#pragma D option quiet
#pragma D option strsize=8

/*
 * A joined string longer than strsize allows (here 8 characters) is
 * DTrace's "out of scratch space" error, not a truncation; tracing
 * goes on. One that just fits is joined.
 */
BEGIN
{
	printf("%s\n", strjoin(execname, "abc"));
}

BEGIN
{
	printf("%s\n", strjoin(execname, "ab"));
}

BEGIN
{
	printf("%s\n", strjoin("a", execname));
}

BEGIN
{
	exit(0);
}
