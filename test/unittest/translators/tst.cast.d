#pragma D option quiet

/* A translated member under a cast is computed by its translator. */
BEGIN
{
	printf("%d %d\n", (int)xlate<psinfo_t>(curthread).pr_pid == pid,
	    (long)curpsinfo->pr_pid == pid);
	exit(0);
}
