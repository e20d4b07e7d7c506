/*
 * usym(), ufunc(), umod() and uaddr() alone in a statement are actions:
 * each records its address and prints it as trace() prints its value.
 */
/* @@trigger: fixture pidfuncs */
#pragma D option quiet

pid$target:a.out:dtt_greet:entry
{
	usym(uregs[R_PC]);
	ufunc(uregs[R_PC]);
	uaddr(uregs[R_PC]);
	umod(uregs[R_PC]);
	printf("|\n");
}
