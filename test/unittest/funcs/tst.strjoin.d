/* @@trigger: comm 6e616d65 */
#pragma D option quiet

/*
 * strjoin() of constants, of strings read at run time, with an empty
 * string, and as an aggregation key.
 */
syscall::getppid:entry
/pid == $target/
{
	printf("%s|%s|%s|%s\n", strjoin("ab", "cd"), strjoin(execname, "-x"),
	    strjoin("", probefunc), strjoin(strjoin(probeprov, ":"), probename));
	@[strjoin(execname, probename)] = count();
}

END
{
	printa("%s %@d\n", @);
}
