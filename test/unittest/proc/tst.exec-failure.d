/* @@trigger: spawn /nonexistent/program */
#pragma D option quiet

/*
 * The target starts a child that execs a path that does not exist:
 * proc:::exec fires in the child with the path, then proc:::exec-failure
 * with the error (ENOENT, 2); exec-success does not fire.
 */
proc:::exec
/ppid == $target/
{
	printf("%s %s (system call %d)\n", probename, args[0],
	    args[1] == 59 || args[1] == 322);
}

proc:::exec-failure
/ppid == $target/
{
	printf("%s %d\n", probename, args[0]);
}

proc:::exec-success
/ppid == $target/
{
	printf("%s\n", probename);
}
