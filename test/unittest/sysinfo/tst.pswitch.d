/* @@trigger: spawn /bin/sleep 0.1 */
#pragma D option quiet

/*
 * The target's child sleep(1) blocks, so the CPU switches away from it:
 * pswitch fires in its context, with an increment of 1 and no Solaris
 * statistic behind it.
 */
sysinfo:::pswitch
/ppid == $target && execname == "sleep"/
{
	@[probename, arg0, arg1 == 0 && arg2 == 0] = count();
}

END
{
	printa("%s %d %d\n", @);
}
