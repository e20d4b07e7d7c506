/* Aggregations: a keyed count (a per-CPU hash) and a scalar sum (a slot of the per-CPU array). */
syscall::read:entry
{
	@calls[pid] = count();
	@bytes = sum(arg2);
}
