/*
 * -U undefines a name, after the -D options before it.
 */
/* @@runtest-opts: -C -DVAL=5 -UVAL -U__linux */
#pragma D option quiet

BEGIN
{
#if !defined(VAL) && !defined(__linux)
	printf("undefined\n");
#endif
	exit(0);
}
