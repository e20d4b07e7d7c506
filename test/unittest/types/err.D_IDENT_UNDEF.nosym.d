/* A kernel symbol that does not exist. */
BEGIN
{
	trace(`no_such_kernel_symbol_at_all);
}
