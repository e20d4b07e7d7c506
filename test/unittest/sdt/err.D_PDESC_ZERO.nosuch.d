/* A tracepoint the kernel does not have. */
sdt:sched::no_such_tracepoint
{
}
