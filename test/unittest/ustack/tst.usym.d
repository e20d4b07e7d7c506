/*
 * usym(), ufunc(), umod() and uaddr() name a user address in the
 * probe's process, in records and in aggregation keys printed after the
 * command is gone (its executable's mapping is kept from its exec on).
 */
/* @@trigger: fixture pidfuncs */
#pragma D option quiet

pid$target:a.out:dtt_add:entry
{
	@funcs[ufunc(uregs[R_PC])] = count();
	@mods[umod(uregs[R_PC])] = count();
}

pid$target:a.out:dtt_greet:entry
{
	trace(usym(uregs[R_PC]));
	trace(uaddr(uregs[R_PC]));
	trace(umod(uregs[R_PC]));
	printf("\n");
}

END
{
	printa(@funcs);
	printa(@mods);
}
