/*
 * chill() may spin at most half a second in each second on a CPU: a
 * second chill of 300 ms right after a first is an illegal operation.
 */
/* @@runtest-opts: -w */
#pragma D option quiet

BEGIN
{
	chill(300000000);
	printf("first\n");
}

BEGIN
{
	chill(300000000);
	printf("second\n");
}

BEGIN
{
	exit(0);
}
/* @@needs: bpf_loop */
