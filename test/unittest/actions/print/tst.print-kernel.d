#pragma D option quiet

/* print() of a kernel struct, its members read from the kernel's BTF. */
BEGIN
{
	print(*(struct load_weight *)&curthread->se.load);
	printf("\n");
	exit(0);
}
