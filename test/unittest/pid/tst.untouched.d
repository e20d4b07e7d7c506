/*
 * copyinstr() and copyin() at a pid probe, of memory in pages the process
 * has not touched: the probe's program is sleepable, so its reads fault
 * the pages in (bpf_copy_from_user) where a read that may not sleep
 * would fail with an invalid address. Its aggregations are updated as
 * everywhere else; an address that is truly invalid is still the ERROR
 * probe's, with the fault and its address.
 */
/* @@needs: sleepable_uprobes */
/* @@trigger: fixture untouched */
#pragma D option quiet

pid$target:a.out:note:entry
{
	printf("%s %s\n", copyinstr(arg0), stringof((char *)copyin(arg1, arg2)));
	@paths[copyinstr(arg0)] = count();
	@most = max(arg2);
	@least = min(arg2);
	@mean = avg(arg2);
	@spread = stddev(arg2);
	@total = sum(arg2);
	@dist = quantize(arg2);
}

pid$target:a.out:note:entry
{
	printf("%s\n", copyinstr(arg2));
}

ERROR
{
	printf("fault %d at %x\n", arg4, arg5);
}

END
{
	printa("%s %@d\n", @paths);
	printa("max %@d\n", @most);
	printa("min %@d\n", @least);
	printa("avg %@d\n", @mean);
	printa("stddev %@d\n", @spread);
	printa("sum %@d\n", @total);
	printa(@dist);
}
