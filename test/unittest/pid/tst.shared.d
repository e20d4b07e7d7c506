/* @@trigger: fixture pidfuncs 2 */

#pragma D option quiet

/*
 * Probes of one process, file and kind share a program, attached at each
 * probe's place with that probe's key: each firing is told apart.
 */
pid$target:a.out:dtt_add:entry,
pid$target:a.out:dtt_scale:0
{
	printf("%s:%s %d\n", probefunc, probename, arg0);
}

pid$target:a.out:dtt_greet:entry
{
	printf("%s:%s %s\n", probefunc, probename, copyinstr(arg0));
}

pid$target:a.out:dtt_add:return
{
	printf("%s:%s %d\n", probefunc, probename, arg1);
}
