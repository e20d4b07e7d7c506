/* Every system call: one raw sys_enter program dispatching on the number. */
syscall:::entry
{
	@[probefunc] = count();
}
