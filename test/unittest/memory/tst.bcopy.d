/*
 * bcopy() copies from any readable memory (here the kernel's task
 * name) into scratch space.
 */
#pragma D option quiet

BEGIN
{
	s = (char *)alloca(8);
	bcopy((void *)curthread->comm, s, 6);
	printf("%s\n", stringof(s));
	exit(0);
}
