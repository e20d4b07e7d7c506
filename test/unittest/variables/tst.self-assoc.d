/* @@trigger: getpid 3 */
#pragma D option quiet

/* Thread-local associative arrays: each thread has its own elements. */
syscall::getpid:entry
/pid == $target/
{
	self->ts[probefunc] = 1;
	self->n["calls", 1]++;
}

syscall::getpid:return
/pid == $target && self->ts[probefunc]/
{
	@[probefunc] = count();
	self->ts[probefunc] = 0;
}

END
{
	printa("%s %@d\n", @);
}
