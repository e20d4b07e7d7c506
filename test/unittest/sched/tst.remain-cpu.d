/* @@trigger: yield 1000 */
#pragma D option quiet

/*
 * The target yields the CPU a thousand times: dtrace pins it to a CPU,
 * and with nothing else to run there the scheduler keeps it, which
 * remain-cpu sees in its context. (One kept thread out of a thousand
 * yields is all the test asks.)
 */
int kept;

sched:::remain-cpu
/pid == $target/
{
	kept++;
}

proc:::exit
/pid == $target/
{
	printf("kept %d\n", kept > 0);
	exit(0);
}
/* @@needs: sched_bare_tracepoints|fentry */
