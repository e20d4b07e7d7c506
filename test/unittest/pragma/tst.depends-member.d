/* @@runtest-opts: -L shapes */
#pragma D option quiet
#pragma D depends_on member task_struct.pid

/*
 * depends_on member: a program that needs a member of a kernel struct
 * compiles where the kernel has it, and of a library directory's files,
 * each written for a shape of a kernel type, only the one whose member
 * the kernel has is compiled; the other is passed over, as DTrace passes
 * over a library whose dependency is not met.
 */
BEGIN
{
	printf("shape %d\n", shape);
	exit(0);
}
