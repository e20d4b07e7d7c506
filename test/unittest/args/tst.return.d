/* @@trigger: open /dev/null/args-return */
#pragma D option quiet

/*
 * A return probe's args[0] and args[1] are the return value as the
 * tracepoint declares it (long): a failed openat returns -ENOTDIR.
 */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/dev/null/args-return"/
{
	self->in = 1;
}

syscall::openat:return
/self->in/
{
	printf("%d %d %d %d\n", args[0], args[1], sizeof (args[0]), args[0] == -20);
	self->in = 0;
}
