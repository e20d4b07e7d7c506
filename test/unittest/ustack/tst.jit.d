/*
 * jstack() names the frames of a JIT's code from the process's perf map
 * (/tmp/perf-PID.map), as %A does; ustack() shows them as addresses, as
 * DTrace's does where no ustack helper names them. The unwinder passes
 * the JIT's frame by its frame pointer. The post-processor drops
 * offsets and the JIT code's address, which vary.
 */
/* @@trigger: fixture jit */
#pragma D option quiet

pid$target:a.out:callee:entry
{
	jstack();
	ustack();
	this->ret = *(uint64_t *)copyin(uregs[R_SP], 8);
	printf("%A\n", this->ret);
}
