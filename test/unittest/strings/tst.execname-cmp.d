/* @@trigger: comm 78647473742d616263646566676869 */
#pragma D option quiet

/*
 * execname compared with constants (the target renames itself to the
 * 15 bytes "xdtst-abcdefghi"): equal only to its whole name, whatever
 * the side, the length or where the names differ.
 */
syscall::getppid:entry
/pid == $target/
{
	printf("%d %d %d %d %d %d %d %d\n",
	    execname == "xdtst-abcdefghi",
	    execname != "xdtst-abcdefghi",
	    execname == "xdtst-abcdefgh",
	    execname == "xdtst-abcdefghij",
	    "xdtst-abcdefghi" == execname,
	    execname == "xdtst-abcdefgha",
	    execname == "",
	    execname != "xdtst");
}
