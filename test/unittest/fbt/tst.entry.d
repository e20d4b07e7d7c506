/* @@needs: fentry */
/* @@trigger: open /dev/null/impossible */
#pragma D option quiet

/*
 * A kernel function's entry: the probe's names, and its arguments typed
 * from the kernel's BTF (the file name is args[1], a user pointer).
 */
fbt::do_sys_openat2:entry
/pid == $target && copyinstr(arg1) == "/dev/null/impossible"/
{
	printf("%s:%s:%s:%s %s\n", probeprov, probemod, probefunc, probename,
	    copyinstr((uintptr_t)args[1]));
	exit(0);
}
