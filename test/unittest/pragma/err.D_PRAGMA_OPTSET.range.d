/*
 * strsize takes 2 to 64k: a larger one is refused, in DTrace's words, where it
 * used to be cut to 64k silently.
 */
#pragma D option strsize=1m

BEGIN
{
	exit(0);
}
