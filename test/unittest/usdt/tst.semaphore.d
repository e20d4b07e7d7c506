/*
 * A probe's semaphore counts its enablings: the fixture's tick passes
 * what MYSERV_QUERY_DONE_ENABLED() says, 0 here, where query-done is not
 * enabled (see tst.enabled.d).
 */
/* @@trigger: fixture usdtapp */
#pragma D option quiet

myserv$target:::tick
{
	printf("%s %d\n", probename, arg0);
}
