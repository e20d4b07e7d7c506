/*
 * @@ncpus: 9
 * Past RINGS_CHOSEN_IN_CODE CPUs the principal buffers are in an array
 * of maps, looked up by CPU.
 */
syscall::getpid:entry
{
	trace(arg0);
}
