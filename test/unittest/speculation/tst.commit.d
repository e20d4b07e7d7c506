#pragma D option quiet
#pragma D option specsize=4k

/*
 * A committed speculation's records appear where the commit() is, after
 * what the principal buffer had before it; speculation() returns 1.
 */
BEGIN
{
	self->s = speculation();
	printf("speculation %d\n", self->s);
}

BEGIN
{
	speculate(self->s);
	printf("speculative %d\n", 1);
}

BEGIN
{
	printf("principal\n");
}

BEGIN
{
	speculate(self->s);
	printf("speculative %d\n", 2);
}

BEGIN
{
	commit(self->s);
}

BEGIN
{
	printf("after\n");
	exit(0);
}
