/* @@trigger: open /dev/null/args-descs */
#pragma D option quiet

/*
 * A clause with several descriptions: args[N] is typed when every
 * description gives it the same type (openat and openat2 agree on their
 * first two arguments, not on the third).
 */
syscall::openat:entry,
syscall::openat2:entry
/pid == $target && copyinstr(arg1) == "/dev/null/args-descs"/
{
	printf("%s %d %s\n", probefunc, args[0], stringof(args[1]));
}
