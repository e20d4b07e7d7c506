/* @@trigger: fixture contend rwsem */
#pragma D option quiet

/*
 * sysinfo:::rw_wrfails adds 1 when a thread of the target finds a
 * file's i_rwsem held when it comes to write.
 */
int seen;

sysinfo:::rw_wrfails
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
