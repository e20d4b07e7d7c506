/* @@trigger: open /dev/null/args */
#pragma D option quiet

/* Syscall arguments as arg0..argN and args[]. */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/dev/null/args"/
{
	printf("%d %d %d\n", arg0 == args[0], arg1 == args[1], arg2 == args[2]);
	printf("%d\n", (int)arg0);
}
