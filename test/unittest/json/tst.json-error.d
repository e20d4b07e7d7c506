/*
 * -x oformat=json: a fault is an error object on the output, and tracing
 * goes on.
 */
/* @@runtest-opts: -x oformat=json */

BEGIN
{
	trace(*(int *)8);
}

BEGIN
{
	trace("after");
	exit(0);
}
