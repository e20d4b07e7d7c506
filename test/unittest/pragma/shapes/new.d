/* A library file for kernels whose task_struct has a pid: every one. */
#pragma D depends_on member task_struct.pid

inline int shape = 2;
