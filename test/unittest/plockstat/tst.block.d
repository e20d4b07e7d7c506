/*
 * Contention: a thread that finds a mutex or rwlock held blocks (a futex
 * wait on the lock), then has it: mutex-block, mutex-blocked (taken: 1),
 * mutex-acquire, in that order, on one lock; rw-block and rw-blocked
 * with is_writer 0 for a reader. The holder's own calls do not block.
 */
/* @@trigger: fixture ucontend */
#pragma D option quiet

plockstat$target:::mutex-block,
plockstat$target:::rw-block
{
	printf("%s %s is_writer=%d\n", probefunc, probename,
	    probename == "rw-block" ? arg1 : 0);
	self->lock = arg0;
}

plockstat$target:::mutex-blocked
/self->lock/
{
	printf("%s %s taken=%d same=%d\n", probefunc, probename, arg1,
	    arg0 == self->lock);
}

plockstat$target:::rw-blocked
/self->lock/
{
	printf("%s %s is_writer=%d taken=%d same=%d\n", probefunc, probename,
	    arg1, arg2, arg0 == self->lock);
}

plockstat$target:::mutex-acquire,
plockstat$target:::rw-acquire
/self->lock/
{
	printf("%s %s same=%d\n", probefunc, probename, arg0 == self->lock);
	self->lock = 0;
}
