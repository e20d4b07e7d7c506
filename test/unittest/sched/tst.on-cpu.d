/* @@trigger: spawn /bin/sleep 0.1 */
#pragma D option quiet

uint64_t longest;

/*
 * The target's child sleep(1) leaves the CPU to block for 0.1 s and
 * comes back on it when its timer fires. sched:::on-cpu fires for it as
 * it comes back: curthread, pid, tid, ppid, execname, curpsinfo and its
 * self-> variables are the incoming thread's, so the off-cpu/on-cpu pair
 * of the Guide's scripts meets in one thread-local, and the longest time
 * off the CPU is at least the 0.1 s nanosleep(2) must block for (at the
 * switch that takes sleep off the CPU, sleep is not the one coming on).
 */
sched:::off-cpu
/ppid == $target && execname == "sleep"/
{
	self->off = timestamp;
}

sched:::on-cpu
/self->off && ppid == $target/
{
	@[execname, curthread->pid == tid, curpsinfo->pr_pid == pid,
	    curpsinfo->pr_ppid == ppid, uid == curpsinfo->pr_uid] = count();
	longest = timestamp - self->off > longest ?
	    timestamp - self->off : longest;
	self->off = 0;
}

END
{
	printa("%s %d %d %d %d\n", @);
	printf("%d\n", longest >= 100000000);
}
