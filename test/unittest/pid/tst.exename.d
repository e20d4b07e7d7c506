/* @@trigger: fixture pidfuncs 2 */

#pragma D option quiet

/*
 * The executable named by its file name: the same probes as a.out, whose
 * module is a.out.
 */
pid$target:pidfuncs:dtt_add:entry
{
	printf("%s:%s:%s %d\n", probemod, probefunc, probename, arg0);
}
