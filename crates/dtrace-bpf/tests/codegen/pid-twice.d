/*
 * A clause that reads pid twice asks the kernel once a firing: the
 * first read keeps bpf_get_current_pid_tgid() in scratch, the second
 * reads it there.
 */
syscall::getpid:entry
{
	@[pid] = sum(pid);
}
