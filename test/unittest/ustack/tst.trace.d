/*
 * ustack(n) as an action records n frames at most; jstack() is ustack()
 * in a process without a ustack helper (every process on Linux).
 */
/* @@trigger: fixture frames */
#pragma D option quiet

BEGIN
{
	n = 0;
}

frames$target:::here
/n++ == 0/
{
	ustack(2);
	jstack(1);
	printf("done\n");
}
