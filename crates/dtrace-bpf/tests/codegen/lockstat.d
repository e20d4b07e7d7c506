/*
 * lockstat on the lock contention tracepoints: a program at
 * contention_begin keeps the time and the flags for this thread and
 * lock (its first two words, keyed by the thread and word 0) in the
 * stash map; the rw-block program at contention_end looks them up by
 * the same key (no entry: no firing), tests the kept flags, and gives
 * the time since as args[1] and the kept flags, through the inline
 * lockstat.d declares (repeated here: this test has no D library), as
 * args[2].
 */
inline int __lockstat_rw[unsigned int F] = (F & 0x4) ? 0 : 1;

lockstat:::rw-block
{
	trace(args[1]);
	trace(args[2]);
}
