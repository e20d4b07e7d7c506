/*
 * chill() spins in the probe for the time given: the system call
 * returns at least that long after it entered.  The verdict is printed
 * at END, after the target has exited and its own line is out, so the
 * two lines come in one order.
 */
/* @@runtest-opts: -w */
/* @@trigger: fixture destruct getpid */
#pragma D option quiet

syscall::getpid:entry
/pid == $target/
{
	self->t = timestamp;
	chill(50000000);
}

syscall::getpid:return
/self->t/
{
	spent = timestamp - self->t;
	self->t = 0;
}

END
{
	printf("%s\n", spent >= 50000000 ? "chilled" : "early");
}
/* @@needs: bpf_loop */
