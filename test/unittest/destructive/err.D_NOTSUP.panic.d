/*
 * panic() would crash the kernel: it is refused, even with -w.
 */
/* @@runtest-opts: -w */
BEGIN
{
	panic();
}
