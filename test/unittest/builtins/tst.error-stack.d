#pragma D option quiet

/*
 * The stack built-ins in an ERROR clause describe the probe that
 * faulted: the error subprogram has the probe's context (the kernel's
 * verifier once refused them there), and its own BPF frame is not
 * counted, so the ERROR clause sees the faulting clause's stack.
 */
/* @@trigger: getpid 1 */

syscall::getpid:entry
/pid == $target/
{
	c = caller;
	d = stackdepth;
	trace(*(int *)0);
}

ERROR
{
	printf("%d %d %d %d %d\n", caller != 0, caller == c, stackdepth == d,
	    d > 0, uregs[R_SP] != 0);
	exit(0);
}
