/*
 * What relies on nothing below the minimum runs: the dtrace provider's
 * described probes, D's variables, an Evolving subroutine, and the
 * library's inlines its pragmas make Stable (curpsinfo).
 */
#pragma D option quiet
#pragma D option amin=Evolving/Evolving/Common

int x;

dtrace:::BEGIN
/curpsinfo->pr_pid == pid/
{
	x = ntohs(0x0100);
	printf("%d %s\n", x, probename);
	exit(0);
}
