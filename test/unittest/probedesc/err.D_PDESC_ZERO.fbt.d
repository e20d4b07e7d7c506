/*
 * On a kernel that refuses fentry programs and has no kprobes (this
 * project's machines) an fbt description fails with the reason.
 * cli.rs::fbt_traces_or_says_why checks either kind of kernel.
 */
fbt::vfs_read:entry
{
}
