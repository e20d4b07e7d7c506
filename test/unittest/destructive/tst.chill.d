/*
 * chill() spins in the probe for the time given: the system call
 * returns at least that long after it entered.
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
	printf("%s\n", timestamp - self->t >= 50000000 ? "chilled" : "early");
	self->t = 0;
}
