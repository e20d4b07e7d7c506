/* @@needs-or-skip: !sched_bare_tracepoints */
/*
 * A probe whose every hook this kernel lacks is not there: naming it
 * says why (sched's remain-cpu is the sched_exit_tp tracepoint, which
 * kernels before 6.13 do not have). Not run on a kernel that has it.
 */
sched:::remain-cpu
{
	exit(0);
}
