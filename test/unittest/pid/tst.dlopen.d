/*
 * A library the command loads with dlopen() once it runs, named by its
 * file: its probes are made from the file where dlopen() will find it,
 * and fire once the process maps it.
 */
/* @@trigger: fixture dlopener */

#pragma D option quiet

pid$target:libm.so.6:jn:entry
{
	printf("%s %d\n", probefunc, arg0);
}

pid$target:libm.so.6:jn:return
{
	printf("%s returned\n", probefunc);
}
