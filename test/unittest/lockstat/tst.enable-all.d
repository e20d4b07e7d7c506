#pragma D option quiet

/*
 * Every lockstat probe loads and attaches (the spin probes' contention
 * cannot be made on demand, so nothing is asserted of their firing):
 * the contention_begin program keeps its words, each probe's program
 * reads them.
 */
int n;

lockstat:::
{
	n++;
}

BEGIN
{
	printf("enabled\n");
	exit(0);
}
/* @@needs: lock_tracepoints|fentry */
