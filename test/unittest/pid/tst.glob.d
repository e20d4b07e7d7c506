/* @@trigger: fixture pidfuncs 5 */

#pragma D option quiet

/*
 * A glob over the executable's functions: each matched function's entry
 * probe counts its calls.
 */
pid$target:a.out:dtt_*:entry
{
	@[probefunc] = count();
}

END
{
	printa("%-10s %@d\n", @);
}
