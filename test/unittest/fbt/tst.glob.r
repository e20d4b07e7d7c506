entry vfs_fsync_range dtrace-fbt-glob
return vfs_fsync_range 0 0

