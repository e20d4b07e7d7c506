/*
 * A kernel symbol that does not exist. The words depend on the kernel
 * (where kallsyms lists functions only, the message says so): cli.rs's
 * kernel_variables_are_read_or_refused_with_the_reason checks them.
 */
BEGIN
{
	trace(`no_such_kernel_symbol_at_all);
}
