/* @@trigger: fixture pidfuncs 3 */

#pragma D option quiet

/*
 * Return probes: arg1 is the return value; arg0 is the offset of the
 * return instruction in the function (never its first instruction here).
 */
pid$target:a.out:dtt_add:return
{
	printf("%s returned %d (arg0 past the start: %d)\n", probefunc, arg1,
	    arg0 > 0);
}
