/* @@trigger: spawn /bin/true */
#pragma D option quiet
#pragma D option aggsortkey

/*
 * The target starts a child (fork(2), or vfork(2) as posix_spawn(3)
 * does): one new thread and one fork, in the target's context, each
 * adding 1; the child's exec(2) in its own.
 */
sysinfo:::sysfork,
sysinfo:::sysvfork
/pid == $target/
{
	@["fork"] = sum(arg0);
}

sysinfo:::nthreads
/pid == $target/
{
	@[probename] = sum(arg0);
}

sysinfo:::sysexec
/ppid == $target/
{
	@[probename] = sum(arg0);
}

END
{
	printa("%s %@d\n", @);
}
