/*
 * Without kprobes (this machine's kernel) an fbt description fails with
 * the reason.
 */
fbt::vfs_read:entry
{
}
