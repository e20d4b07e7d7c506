/* @@trigger: getpid 1 */
#pragma D option quiet

/* One clause for several descriptions, globs in every field. */
syscall::getpid:entry,
sys*::getp?d:return
/pid == $target/
{
	printf("%s\n", probename);
}

syscall::getpi[a-d]:ent*
/pid == $target/
{
	printf("glob %s\n", probefunc);
}
