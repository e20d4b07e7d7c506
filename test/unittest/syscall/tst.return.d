/* @@trigger: getpid 1 */
#pragma D option quiet

/* Return probes: the return value in arg0 and arg1, errno 0 on success. */
syscall::getpid:return
/pid == $target/
{
	printf("%d %d %d\n", arg0 == $target, arg1 == $target, errno);
}
