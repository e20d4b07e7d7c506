#pragma D option quiet

/* BEGIN runs in dtrace's own context. */
BEGIN
{
	printf("%d %d %d %s\n", pid == $pid, tid == pid, ppid > 0, execname);
	printf("%d %d\n", uid == $uid, gid == $gid);
	exit(0);
}
