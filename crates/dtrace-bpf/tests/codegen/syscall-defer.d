/*
 * copyinstr() at a system call's entry: a fault at a user address keeps
 * the clause for the return (dt_deferred), where dt_sys_exit_deferred
 * runs it with the entry's arguments.
 */
syscall::open:entry
{
	trace(copyinstr(arg1));
}
