/* A control line must end before the file does. */
BEGIN
{
	exit(0);
}
#pragma D option quiet