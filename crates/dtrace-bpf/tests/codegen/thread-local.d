/* A thread-local set at entry and read and cleared at return. */
syscall::read:entry
{
	self->ts = timestamp;
}

syscall::read:return
/self->ts/
{
	@lat = quantize(timestamp - self->ts);
	self->ts = 0;
}
