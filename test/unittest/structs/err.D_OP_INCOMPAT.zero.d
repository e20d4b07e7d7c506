/* A struct thread-local is not deleted by assigning 0: 0 is not a
   struct. */
BEGIN
{
	self->t = *curthread;
	self->t = 0;
}
