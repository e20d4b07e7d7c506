/* @@status: 3 */
#pragma D option quiet

/* The status given to exit() is dtrace's exit status. */
BEGIN
{
	exit(3);
}
