/* @@needs: fentry */
/* @@trigger: fsync /tmp/dtrace-fbt-glob */
#pragma D option quiet

/*
 * A glob enables many kernel functions at once (one kprobe_multi link
 * where the kernel has them; else one kprobe event from Linux 5.15, a
 * tracing program each before): the
 * probe that fires is known by its function, and its arguments are the
 * function's, at entry and at return. (Where /tmp is an overlay, as in
 * the kernel matrix's guests, the overlay's own fsync calls
 * vfs_fsync_range again, for the file beneath: the first call is shown,
 * and the first return.)
 */
fbt::vfs_*:entry
/pid == $target && probefunc == "vfs_fsync_range" && !self->in/
{
	printf("%s %s %s\n", probename, probefunc,
	    stringof(((struct file *)arg0)->f_path.dentry->d_name.name));
	self->in = 1;
}

fbt::vfs_*:return
/self->in && probefunc == "vfs_fsync_range"/
{
	printf("%s %s %d %d\n", probename, probefunc, arg0, arg1);
	self->in = 0;
	exit(0);
}
