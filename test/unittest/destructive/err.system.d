/*
 * system() is destructive: without -w tracing does not start.
 */
#pragma D option quiet

BEGIN
{
	system("echo never");
	exit(0);
}
