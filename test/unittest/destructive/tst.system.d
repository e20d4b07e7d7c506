/*
 * system() runs its command when the record is consumed: what it prints
 * comes between what was printed before and after it.
 */
/* @@runtest-opts: -w */
#pragma D option quiet

BEGIN
{
	printf("before\n");
	system("echo %s %d", "system", 42);
	printf("after\n");
	exit(0);
}
