/* @@trigger: open /dev/null/args-int */
#pragma D option quiet

/*
 * An int argument is an int: negative values stay negative, it has int's
 * size, and it compares and aggregates as a signed 32-bit value.
 */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/dev/null/args-int"/
{
	printf("%d %d %d %d\n", args[0], sizeof (args[0]), args[0] == -100, args[0] < 0);
	@min = min(args[0]);
	x = args[0];
	printf("%d %d\n", x, sizeof (x));
}

END
{
	printa("%@d\n", @min);
}
