/*
 * A library file for kernels whose task_struct has a member no kernel
 * has: passed over, so its body, which reads that member, is never
 * compiled.
 */
#pragma D depends_on member task_struct.no_such_member

inline int shape = 1;
inline int old_only = curthread->no_such_member;
