/* @@trigger: getpid 1 */
#pragma D option quiet

/*
 * A -c command is held before its exec until tracing is enabled: its own
 * exec is seen.
 */
proc:::exec-success
/pid == $target/
{
	printf("%d %d\n", pid == $target, curpsinfo->pr_pid == $target);
}
