/* sizeof a string constant counts its NUL, as in C. */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", sizeof("hi"), sizeof(""));
	exit(0);
}
