vfs_fsync_range dtrace-fbt-args

