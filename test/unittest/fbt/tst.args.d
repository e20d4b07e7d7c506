/* @@needs: fentry */
/* @@trigger: fsync /tmp/dtrace-fbt-args */
#pragma D option quiet

/*
 * Typed arguments: args[0] of vfs_fsync_range is a struct file *, whose
 * members D follows to the file's name.
 */
fbt::vfs_fsync_range:entry
/pid == $target/
{
	printf("%s %s\n", probefunc, stringof(args[0]->f_path.dentry->d_name.name));
	exit(0);
}
