#pragma D option quiet

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
