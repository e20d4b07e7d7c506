/*
 * -x oformat=json shows how each frame of a user stack was found: the
 * first is the instruction pointer ("pc"), the others by the call frame
 * information of the frame below ("cfi") or, where that code has none
 * (nocfi, written in assembly), by its frame pointer ("fp"). The
 * post-processor keeps the stack and drops the offsets.
 */
/* @@trigger: fixture unwind */
/* @@runtest-opts: -x oformat=json */
#pragma D option quiet

pid$target:a.out:leaf:entry
{
	ustack();
}
