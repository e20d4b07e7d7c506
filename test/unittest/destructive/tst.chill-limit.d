/*
 * chill() of more than half a second is an illegal operation: the ERROR
 * probe fires and tracing goes on.
 */
/* @@runtest-opts: -w */
#pragma D option quiet

BEGIN
{
	chill(600000000);
	printf("not reached\n");
}

BEGIN
{
	printf("next clause\n");
	exit(0);
}
/* @@needs: bpf_loop */
