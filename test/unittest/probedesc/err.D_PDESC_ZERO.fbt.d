/*
 * On a kernel that refuses fentry programs and has no kprobes (this
 * project's machines) an fbt description fails with the reason; where
 * the kernel allows function tracing the probe fires and the program
 * exits at once, which does not fit, as @@needs says.
 * cli.rs::fbt_traces_or_says_why checks either kind of kernel.
 */
/* @@needs: !fentry */
fbt::vfs_read:entry
{
	exit(0);
}
