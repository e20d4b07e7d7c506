/*
 * A pragma inside a declaration, and one among a clause's expression,
 * take effect as any other.
 */
inline int foo
#pragma D option quiet
    = 3;

BEGIN
{
	printf("%d\n", foo +
#pragma D option switchrate=10hz
	    1);
	exit(0);
}
