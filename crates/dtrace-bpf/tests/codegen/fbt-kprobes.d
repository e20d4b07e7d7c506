/*
 * fbt through kprobes: a glob enables more of the kernel's functions
 * (vfs_op0 to vfs_op16) than fbt gives a program each, so one kprobe
 * program serves them all, its probe found by the attachment's cookie.
 * At entry, arg0 is the first argument register (rdi); at return, arg0
 * is 0 and arg1 the return value (rax).
 */
fbt::vfs_op*:entry
{
	trace(arg0);
	trace(probefunc);
}

fbt::vfs_op*:return
{
	trace(arg0);
	trace(arg1);
}
