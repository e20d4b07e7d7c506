/* A pointer variable may be set to 0, and to a pointer of its type or void *. */
#pragma D option quiet

BEGIN
{
	x = curthread;
	x = 0;
	x = (struct task_struct *)(void *)curthread;
	printf("%d\n", x == curthread);
	exit(0);
}
