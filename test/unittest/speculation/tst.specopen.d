#pragma D option flowindent
#pragma D option specsize=64k

/*
 * The seed's specopen.d on Linux: every openat() is traced
 * speculatively, with its path and errno; only the failed ones are
 * committed. (Without fbt, the code path inside is the system call's
 * own probes.)
 */
/* @@trigger: spawn sh -c exec</etc/hostname</nonexistent/speculation/test */

syscall::openat:entry
/execname == "sh" && progenyof($target) &&
    (substr(copyinstr(arg1), 0, 5) == "/etc/" ||
    substr(copyinstr(arg1), 0, 13) == "/nonexistent/")/
{
	self->spec = speculation();
	speculate(self->spec);
	printf("%s", stringof(copyinstr(arg1)));
}

syscall::openat:return
/self->spec/
{
	speculate(self->spec);
	trace(errno);
}

syscall::openat:return
/self->spec && errno != 0/
{
	commit(self->spec);
	self->spec = 0;
}

syscall::openat:return
/self->spec && errno == 0/
{
	discard(self->spec);
	self->spec = 0;
}
