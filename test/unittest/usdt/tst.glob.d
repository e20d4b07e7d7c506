/*
 * A provider glob matches the target's USDT providers: myserv*.
 */
/* @@trigger: fixture usdtapp */
#pragma D option quiet

myserv*:::query-start,
myserv*:::tick
{
	@[probename] = count();
}

END
{
	printa("%s %@d\n", @);
}
