/* @@trigger: fixture instrs 4 */

#pragma D option quiet
#pragma D option aggsortkey

/*
 * An empty probe name gives the function's entry and return probes and
 * one probe per instruction, named by its offset: work is seven
 * instructions at 0, 1, 4, 8, a, d and e, each run on every call.
 */
pid$target:a.out:work:
{
	@[probename] = count();
}

END
{
	printa("%-6s %@d\n", @);
}
