/*
 * -v reports the lowest attributes of the program's descriptions and
 * of its statements: syscall::read:entry names the syscall provider's
 * function part (Private/Private/ISA), probefunc is that part, and
 * the rest of the clause is Stable.
 */
/* @@runtest-opts: -v -q */
/* @@trigger: cat /dev/null */

syscall::read:entry
/pid == $target/
{
	@[probefunc] = count();
}

proc:::exit
/pid == $target/
{
	exit(0);
}

END
{
	printa("%s\n", @);
}
