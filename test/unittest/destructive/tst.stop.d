/*
 * stop() stops the process as it returns from the probe; SIGCONT (sent
 * here once the process shows it has stopped) resumes it.
 */
/* @@runtest-opts: -w */
/* @@trigger: fixture destruct getpid */
#pragma D option quiet

syscall::getpid:entry
/pid == $target/
{
	stop();
	system("while ! grep -q '^State:.*T' /proc/%d/status; do sleep 0.01; done; echo stopped; kill -CONT %d", pid, pid);
}
