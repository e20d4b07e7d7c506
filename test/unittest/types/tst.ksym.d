#pragma D option quiet

/* A kernel function's symbol is its address (from kallsyms), typed from
   BTF. */
BEGIN
{
	printf("%d\n", (uint64_t)&`schedule != 0 && (uint64_t)&vmlinux`schedule == (uint64_t)&`schedule);
	exit(0);
}
