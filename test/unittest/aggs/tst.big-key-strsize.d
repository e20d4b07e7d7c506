/*
 * At strsize=1024 a key of three strings is 3 KiB: an aggregation and
 * an associative array keyed so count what the target opened.
 */
#pragma D option quiet
#pragma D option strsize=1024

/* @@trigger: open /etc/hostname */

syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/etc/hostname"/
{
	@[probefunc, copyinstr(arg1), copyinstr(arg1)] = count();
	x[probefunc, copyinstr(arg1), copyinstr(arg1)]++;
}

END
{
	printa("%s %s %s %@d\n", @);
	printf("%d\n", x["openat", "/etc/hostname", "/etc/hostname"]);
}
