#pragma D option quiet

/* Thread-local and clause-local variables read before any assignment are
   an int 0. */
BEGIN
{
	printf("%d %d %d\n", self->x, this->y + 1, sizeof (self->z));
	exit(self->w);
}
