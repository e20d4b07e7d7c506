/* @@trigger: fixture pidfuncs 3 */

#pragma D option quiet

/*
 * Entry probes of a function of the executable: its arguments in
 * registers, in order.
 */
pid$target:a.out:dtt_add:entry
{
	printf("%s:%s:%s %d %d\n", probemod, probefunc, probename, arg0, arg1);
}
