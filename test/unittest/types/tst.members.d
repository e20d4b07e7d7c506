#pragma D option quiet

/* Member access through a pointer reads kernel memory: a bad address
   fires ERROR with DTrace's message and tracing goes on. */
struct node {
	int value;
	struct node *next;
};

BEGIN
{
	p = (struct node *)8;
	trace(p->next->value);
}

BEGIN
{
	printf("still tracing\n");
	exit(0);
}

ERROR
{
	printf("error %d at 0x%x\n", arg4, arg5);
}
