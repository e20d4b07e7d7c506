/* @@needs: fentry */
/* @@needs-or-skip: kprobe_multi */
/*
 * Without kprobe_multi links (5.10; Debian 12's 6.1, built without
 * CONFIG_FPROBE) the kernel arms, disarms and removes every function's
 * probe on its own (6.1: one probe of a kprobe event each; 5.10: a
 * program and a trampoline each), each an update of the kernel's ftrace
 * records and a wait for RCU: tens of thousands of them take longer
 * than a test may, so it is not run there (docs/KERNELS.md has what it
 * takes).
 */
/* @@trigger: getpid 1 */
/* @@timeout: 240 */
#pragma D option quiet

/*
 * Every function the kernel can trace, enabled at once (one kprobe_multi
 * link where the kernel has them), counted, and all let go again when
 * tracing ends.
 */
int n;

fbt:::entry
{
	@ = count();
	n = 1;
}

syscall::getpid:return
/pid == $target/
{
	exit(0);
}

END
{
	trunc(@);
	printf("%s\n", n ? "counted" : "nothing");
}
