/*
 * fbt on fentry and fexit, for a function of two arguments (BTF id
 * 777): the entry program reads them from its context's words 0 and 1;
 * the return program reads arg0 as 0 (no return offset) and arg1 from
 * word 2, the return value after the arguments. stackdepth skips the
 * program's own frame.
 */
fbt::vfs_fsync:entry
{
	trace(arg0);
	trace(arg1);
}

fbt::vfs_fsync:return
{
	trace(arg1);
	trace(stackdepth);
}
