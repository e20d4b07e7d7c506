/* @@trigger: fixture contend mutex */
#pragma D option quiet

/*
 * sysinfo:::mutex_adenters adds 1 when a thread of the target finds a
 * mutex held (two readers of one pseudo-terminal).
 */
int seen;

sysinfo:::mutex_adenters
/pid == $target && !seen/
{
	seen = 1;
	printf("%s %s %d\n", probename, execname, arg0);
}

proc:::exit
/pid == $target/
{
	exit(0);
}
/* @@needs: lock_tracepoints|fentry */
