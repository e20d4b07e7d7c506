#pragma D option quiet

/* Storing a struct copies its bytes: from a bad address that fires
   ERROR "invalid address", and tracing goes on; the variable keeps its
   old value. Tracing a struct at a bad address faults the same way. */
struct pair {
	int a;
	int b;
};

BEGIN
{
	self->p = *(struct pair *)&curthread->pid;
	self->p = *(struct pair *)16;
}

BEGIN
{
	trace(*(struct pair *)24);
}

BEGIN
{
	printf("%d\n", self->p.a == tid);
	exit(0);
}
