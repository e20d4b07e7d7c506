/* @@trigger: getpid 3 */
#pragma D option quiet

/*
 * self-> variables belong to one thread: set at syscall entry, read at
 * return, and zero for threads that never set them.
 */
syscall::getpid:entry
/pid == $target/
{
	self->n++;
	self->ts = timestamp;
}

syscall::getpid:return
/self->ts/
{
	@calls = count();
	@max = max(self->n);
	self->ts = 0;
}

syscall::getppid:return
/pid == $target && self->ts/
{
	printf("unexpected\n");
}
