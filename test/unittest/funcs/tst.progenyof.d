/*
 * progenyof(): whether the current process is the one given or descends
 * from it. The target is dtrace's child; pid 1 is everyone's ancestor.
 */
/* @@trigger: getpid */
#pragma D option quiet

syscall::getpid:entry
/pid == $target/
{
	printf("%d %d %d %d\n", progenyof($target), progenyof($pid),
	    progenyof(1), progenyof($target + 1000000));
	exit(0);
}
