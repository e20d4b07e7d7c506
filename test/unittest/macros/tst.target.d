/* @@trigger: getpid 1 */
#pragma D option quiet

/* $target is the -c process's pid, $pid dtrace's own. */
syscall::getpid:entry
/pid == $target/
{
	printf("%d %d\n", pid == $target, $pid != $target);
}
