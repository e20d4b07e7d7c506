/* @@trigger: fixture pidfuncs 3 */

#pragma D option quiet

/*
 * Return probes: arg1 is the return value; arg0, DTrace's offset of the
 * return instruction, is 0 (a return probe cannot tell which ran).
 */
pid$target:a.out:dtt_add:return
{
	printf("%s returned %d (arg0 %d)\n", probefunc, arg1, arg0);
}
