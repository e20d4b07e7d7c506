/* @@needs: fentry */
/* @@trigger: open /dev/null/impossible */
#pragma D option quiet

/*
 * A kernel function's return: arg0 is the returning instruction's
 * offset (0: the kernel does not tell it), arg1 and args[1] the return
 * value (a long: -ENOTDIR for a path through a device).
 */
fbt::do_sys_openat2:entry
/pid == $target && copyinstr(arg1) == "/dev/null/impossible"/
{
	self->want = 1;
}

fbt::do_sys_openat2:return
/self->want/
{
	printf("%s %d %d %d\n", probename, arg0, (long)arg1, args[1]);
	self->want = 0;
	exit(0);
}
