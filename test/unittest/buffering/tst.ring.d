#pragma D option quiet
#pragma D option bufpolicy=ring
#pragma D option bufsize=4k

/*
 * The ring policy keeps each CPU's newest records: 1000 numbered ones
 * through a 4k buffer leave only the last ones, in order, up to 999;
 * nothing is printed until the end, END's record after them.
 */
/* @@trigger: getpid 1000 */

int n;

syscall::getpid:entry
/pid == $target/
{
	printf("%d\n", n++);
}

END
{
	printf("end\n");
}
