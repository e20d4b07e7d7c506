/* @@trigger: fixture wake */
#pragma D option quiet

/*
 * The target, on CPU 0, wakes a thread of its own bound to CPU 1 twenty
 * times: CPU 1 is told to make a scheduling decision, which surrender
 * sees on CPU 0, with CPU 1 as args[2]. (One of the twenty is all the
 * test asks.)
 */
int told;

sched:::surrender
/pid == $target && args[2] == 1/
{
	told++;
}

proc:::exit
/pid == $target/
{
	printf("told %d\n", told > 0);
	exit(0);
}
/* @@needs: sched_bare_tracepoints|fentry */
