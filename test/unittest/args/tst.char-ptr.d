/* @@trigger: open /dev/null/args-char */
#pragma D option quiet

/*
 * openat's filename is a const char *: stringof() reads it from the
 * calling process (it is a user address: the kernel's own string read
 * would fault). copyinstr() takes a uintptr_t, as its prototype says,
 * so the pointer is cast.
 */
syscall::openat:entry
/pid == $target && stringof(args[1]) == "/dev/null/args-char"/
{
	printf("%s\n", copyinstr((uintptr_t)args[1]));
	printf("%s\n", stringof(args[1]));
	trace(strlen(stringof(args[1])));
	printf("\n%d %d\n", args[1] != NULL, sizeof (args[1]));
}
