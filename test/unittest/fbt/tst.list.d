/* @@needs: fentry */
/* @@runtest-opts: -l */

/* Listing a kernel function's probes (the IDs vary: the post-processor drops them). */
fbt::vfs_read:entry,
fbt::vfs_read:return
{
}
