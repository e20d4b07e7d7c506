/* @@trigger: spawn /bin/sleep 0.1 */
#pragma D option quiet

/*
 * sched:::sleep fires as a thread blocks: the target's child sleep(1)
 * does.
 */
sched:::sleep
/ppid == $target && execname == "sleep"/
{
	@[execname] = count();
}

END
{
	printa("%s\n", @);
}
