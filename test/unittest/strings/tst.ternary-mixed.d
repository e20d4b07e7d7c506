#pragma D option quiet

/* A ?: whose branches are a constant and a string read at run time, used
   in a comparison, a variable and printf: the kernel verifier once refused
   it (the constant's branch read as many bytes as the other's). */
BEGIN
{
	printf("%d %d\n", (pid == 0 ? "a" : curthread->comm) == execname,
	    (pid != 0 ? "a" : curthread->comm) == "a");
	x = pid != 0 ? "const" : execname;
	printf("%s %s\n", x, pid == 0 ? "const" : curthread->comm);
	exit(0);
}
