/*
 * raise() sends a signal to the process the probe fired in.
 */
/* @@runtest-opts: -w */
/* @@trigger: fixture destruct raise */
#pragma D option quiet

syscall::getpid:entry
/pid == $target/
{
	raise(SIGUSR1);
}
