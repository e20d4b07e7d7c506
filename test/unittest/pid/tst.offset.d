/* @@trigger: fixture pidfuncs 2 */

#pragma D option quiet

/*
 * An offset probe: offset 0 is the function's first instruction, where
 * the entry probe also fires.
 */
pid$target:a.out:dtt_add:0
{
	printf("%s %s %d\n", probefunc, probename, arg0);
}
