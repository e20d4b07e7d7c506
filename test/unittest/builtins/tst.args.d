/* @@trigger: open /dev/null/args */
#pragma D option quiet

/*
 * Syscall arguments as arg0..argN and args[]: argN is the raw 64-bit
 * value, args[N] that value as the type the probe declares. openat's
 * dfd is an int: AT_FDCWD is -100 as args[0], but the register holds
 * its 32 bits zero-extended.
 */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/dev/null/args"/
{
	printf("%d %d %d\n", arg0 == args[0], arg1 == args[1], arg2 == args[2]);
	printf("%d %d %d\n", (int)arg0, args[0], (int)arg0 == args[0]);
	printf("%d\n", arg0);
}
