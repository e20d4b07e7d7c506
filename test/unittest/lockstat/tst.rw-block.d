/* @@trigger: fixture contend rwsem */
#pragma D option quiet

/*
 * A thread of the target sleeps for at least 100 ms on a file's i_rwsem
 * that another of its threads holds for writing: rw-block fires once it
 * has the lock, as a writer, with the time it slept.
 */
int seen;

lockstat:::rw-block
/pid == $target && !seen/
{
	seen = 1;
	printf("%s %s slept %d as %s\n", probename, execname,
	    args[1] >= 50000000, args[2] == RW_WRITER ? "writer" : "reader");
}

proc:::exit
/pid == $target/
{
	exit(0);
}
/* @@needs: lock_tracepoints|fentry */
