/* @@needs: kallsyms_data btf_vars */
#pragma D option quiet

/*
 * A per-CPU kernel variable, found in kallsyms and typed from the
 * kernel's BTF: this CPU's run queue (a struct rq) knows its CPU.
 */
BEGIN
{
	printf("%d\n", `runqueues.cpu == cpu);
	exit(0);
}
