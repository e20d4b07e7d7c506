/* @@needs: kallsyms_data */
/* A kernel variable declared extern is read by its name, with the declared type (no BTF needed). */
#pragma D option quiet

extern unsigned long max_pfn;

BEGIN
{
	printf("%d %d\n", max_pfn > 0, sizeof(max_pfn));
	exit(0);
}
