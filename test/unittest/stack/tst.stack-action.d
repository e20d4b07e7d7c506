#pragma D option quiet

/*
 * stack() as a statement records the kernel stack; it prints as a
 * newline, then a frame a line.
 */
/* @@trigger: getpid 1 */

syscall::getpid:entry
/pid == $target/
{
	printf("before");
	stack();
	printf("after\n");
}
