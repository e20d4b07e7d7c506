/*
 * The lock of an acquire, kept from the call's entry, is the one its
 * release names: the fixture's normal mutex is taken and released
 * twice, one address for all four.
 */
/* @@trigger: fixture locks */
#pragma D option quiet

BEGIN
{
	seen = 0;
	n = 0;
}

plockstat$target::pthread_mutex_lock:mutex-acquire
/!seen/
{
	seen = 1;
	first = arg0;
}

plockstat$target::pthread_mutex_unlock:mutex-release
/arg0 == first/
{
	n++;
}

END
{
	printf("%d releases of the first mutex taken\n", n);
}
