/* @@trigger: fixture instrs 2 */

#pragma D option quiet

/*
 * A return probe fires at the function's return instruction, as DTrace's
 * do: arg0 is its offset (work's ret is at e), arg1 the return value, and
 * nothing else of the process is touched.
 */
pid$target:a.out:work:return
{
	printf("%s %x %d\n", probefunc, arg0, arg1);
}
