#pragma D option quiet
#pragma D option specsize=4k

/* A discarded speculation's records never appear. */
BEGIN
{
	self->s = speculation();
}

BEGIN
{
	speculate(self->s);
	printf("discarded\n");
}

BEGIN
{
	discard(self->s);
	printf("principal\n");
	exit(0);
}
