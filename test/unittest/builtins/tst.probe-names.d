/* @@trigger: getpid 1 */
#pragma D option quiet

/* The probe's own names, ids and the enabled-probe id. */
BEGIN
{
	printf("%s:%s:%s:%s %d %d\n", probeprov, probemod, probefunc, probename, id, epid);
}

syscall::getpid:entry,
syscall::getpid:return
/pid == $target/
{
	printf("%s:%s:%s:%s %d\n", probeprov, probemod, probefunc, probename, epid);
}
