/* Aggregations: a keyed count and a scalar sum, per-CPU hashes. */
syscall::read:entry
{
	@calls[pid] = count();
	@bytes = sum(arg2);
}
