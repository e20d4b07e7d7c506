/* The last script argument must be referenced. */
/* @@args: first second */

BEGIN
{
	trace($$1);
	exit(0);
}
