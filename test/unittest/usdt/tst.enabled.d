/*
 * With query-done enabled, its semaphore is raised:
 * MYSERV_QUERY_DONE_ENABLED() is true, and the guarded probe fires.
 */
/* @@trigger: fixture usdtapp */
#pragma D option quiet

BEGIN
{
	n = 0;
}

myserv$target:::query-done
{
	n++;
}

myserv$target:::tick
{
	printf("%s %d after %d query-done\n", probename, arg0, n);
}
