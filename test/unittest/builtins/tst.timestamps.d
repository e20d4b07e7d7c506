/* @@trigger: getpid 2 */
#pragma D option quiet

self uint64_t ts;
self uint64_t vts;

/*
 * timestamp grows, vtimestamp grows for a thread, walltimestamp is
 * the time of day in nanoseconds.
 */
syscall::getpid:entry
/pid == $target && self->ts == 0/
{
	self->ts = timestamp;
	self->vts = vtimestamp;
}

syscall::getpid:return
/pid == $target && self->ts/
{
	printf("%d %d\n", timestamp > self->ts, vtimestamp >= self->vts);
	printf("%d\n", walltimestamp > 1700000000000000000 &&
	    walltimestamp < 4000000000000000000);
	self->ts = 0;
	exit(0);
}
