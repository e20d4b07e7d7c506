/*
 * breakpoint() has no kernel debugger to stop in on Linux: refused.
 */
/* @@runtest-opts: -w */
BEGIN
{
	breakpoint();
}
