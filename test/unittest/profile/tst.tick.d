#pragma D option quiet

int n;

/* tick-N fires on one CPU, again and again, with units. */
tick-10ms
{
	n++;
}

tick-5000us
/n >= 3/
{
	printf("%s %s\n", probefunc, probename);
	exit(0);
}
