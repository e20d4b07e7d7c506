#pragma D option specsize=4k

/* speculate() alone speculatively traces the default action (the probe). */
BEGIN
{
	self->s = speculation();
}

BEGIN
{
	speculate(self->s);
}

BEGIN
{
	commit(self->s);
}

BEGIN
{
	exit(0);
}
