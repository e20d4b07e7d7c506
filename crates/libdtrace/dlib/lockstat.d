/*
 * The lockstat provider's constants. A readers/writer lock probe says
 * how the lock was taken, as Solaris's krw_t numbers it: RW_WRITER or
 * RW_READER. Linux's lock:contention_begin tracepoint says it in its
 * flags (LCB_F_WRITE 0x4, LCB_F_READ 0x2).
 */
inline int RW_WRITER = 0;
inline int RW_READER = 1;

inline int __lockstat_rw[unsigned int F] = (F & 0x4) ? RW_WRITER : RW_READER;
