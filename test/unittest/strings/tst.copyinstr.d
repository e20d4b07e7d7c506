/* @@trigger: open /dev/null/impossible */
#pragma D option quiet

/* copyinstr() reads a string from the traced process. */
syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/dev/null/impossible"/
{
	printf("%s\n", copyinstr(arg1));
	self->want = 1;
}

syscall::openat:return
/self->want/
{
	printf("%d %d errno %d\n", arg0, arg1, errno);
	self->want = 0;
}
