/*
 * pr_argc would need a read of the process's initial stack (user memory
 * that is not a string): psinfo_t does not define it.
 */
BEGIN
{
	trace(curpsinfo->pr_argc);
}
