/* ucaller came with D 1.2: a program for 1.1 does not have it. */
#pragma D option version=1.1

BEGIN
{
	trace(ucaller);
	exit(0);
}
