/* No translator from a string to psinfo_t. */
BEGIN
{
	trace(xlate<psinfo_t *>("x")->pr_pid);
}
