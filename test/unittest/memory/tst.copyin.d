/*
 * copyin() copies the process's memory into scratch space; copyinto()
 * into space already allocated (zeroed by alloca(), so the copy ends in
 * a NUL here). Shown at END, after what the process itself wrote.
 */
/* @@trigger: fixture destruct write */
#pragma D option quiet

syscall::write:entry
/pid == $target/
{
	c = (char *)copyin(arg1, 5);
	first = strjoin(lltostr(c[0]), lltostr(c[4]));
	b = (char *)alloca(arg2 + 1);
	copyinto(arg1, arg2, b);
	all = stringof(b);
}

END
{
	printf("%s %s", first, all);
}
