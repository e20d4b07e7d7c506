/*
 * fbt on fentry and fexit, for a function of two arguments (BTF id
 * 777): the entry program reads them from its context's words 0 and 1;
 * the return program reads arg0 as 0 (no return offset) and arg1 from
 * word 2, the return value after the arguments. stackdepth skips the
 * program's own frame. vfs_op0's argument, a void *, is copied out of
 * the context (older verifiers refuse to load a pointer to what is not
 * a struct).
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

fbt::vfs_op0:entry
{
	trace(arg0);
}
