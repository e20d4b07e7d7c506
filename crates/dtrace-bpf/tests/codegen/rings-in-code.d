/*
 * @@ncpus: 3
 * On a machine of a few CPUs a program chooses its CPU's principal
 * buffer by comparing the CPU with each: three ring buffers named in
 * the code (the parts of map 0), no lookup.
 */
syscall::getpid:entry
{
	trace(arg0);
}
