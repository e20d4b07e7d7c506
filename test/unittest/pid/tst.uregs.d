/* @@trigger: fixture pidfuncs 2 */

#pragma D option quiet

/*
 * uregs[] in a pid probe: the thread's user registers at the probe, the
 * arguments' registers among them.
 */
pid$target:a.out:dtt_add:entry
{
	printf("%d %d %d\n", uregs[R_RDI], uregs[R_RSI], uregs[R_RDI] == arg0);
}
