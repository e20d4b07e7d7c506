/*
 * copyinstr() at a system call's entry of a string in a page the process
 * has not touched: the read faults there, so the clause is deferred to
 * the call's return, where the kernel has touched the page, and runs
 * then, as the entry probe, with the entry's arguments (its predicate's
 * read faults too, and is deferred with it). No error.
 */
/* @@trigger: fixture untouched */
#pragma D option quiet

syscall::openat:entry
/pid == $target && copyinstr(arg1) == "/etc/hostname"/
{
	printf("%s %s\n", probename, copyinstr(arg1));
}
