/* @@trigger: spawn /bin/true */
#pragma D option quiet

/*
 * One exec seen by a tracepoint program (sdt) and a raw tracepoint
 * program (proc): the raw one's stack begins with BPF frames (the
 * program, bpf_trace_run), which are skipped, so both have the same
 * caller and stack depth.
 */
sdt:sched::sched_process_exec
/ppid == $target/
{
	self->c = caller;
	self->d = stackdepth;
}

proc:::exec-success
/ppid == $target/
{
	self->pc = caller;
	self->pd = stackdepth;
}

syscall::execve:return
/ppid == $target && self->c && self->pc/
{
	printf("%d %d %d\n", self->c == self->pc, self->d == self->pd,
	    self->d > 2);
	exit(0);
}
