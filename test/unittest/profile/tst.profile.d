#pragma D option quiet
/* One CPU: profile fires on every CPU at once, and the flag below is no lock. */
#pragma D option cpu=0

int done;

/* profile-N fires on every CPU; 1000hz is a period of 1ms. */
profile-1000hz
/!done/
{
	done = 1;
	printf("%s:%s\n", probeprov, probename);
}

tick-100ms
/done/
{
	exit(0);
}
