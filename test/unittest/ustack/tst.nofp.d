/*
 * ustack() unwinds code built without frame pointers by its call frame
 * information: glibc's qsort (Debian builds glibc without frame
 * pointers) calls the fixture's comparator, built with
 * -fomit-frame-pointer, and the stack shows the comparator, glibc's sort
 * (named from glibc's separate debug file, found by build ID) and main,
 * in the order gdb's bt shows them. At the entry of work(), which pushes
 * %rbp first, main is there once. The command is gone before the
 * aggregation is printed: its objects' places were reported as it
 * mapped them. The post-processor drops the offsets, which depend on the
 * compiler and on glibc's build.
 */
/* @@trigger: fixture unwind */
#pragma D option quiet

pid$target:a.out:cmp:entry,
pid$target:a.out:work:entry
{
	@[probefunc, ustack()] = count();
}
