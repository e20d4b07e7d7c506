/*
 * Kernel variables (see FakeKernel in codegen.rs): `max_pfn is read from
 * its address with a checked kernel read; `cpu_number, a per-CPU
 * variable, is this CPU's copy, whose address the kernel gives the
 * program (lddw of its BTF id, src=3, then bpf_this_cpu_ptr, helper 154).
 */
BEGIN
{
	printf("%d %d\n", `max_pfn > 0, `cpu_number == cpu);
}
