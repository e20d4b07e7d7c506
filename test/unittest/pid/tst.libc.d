/* @@trigger: fixture pidfuncs 42 */

#pragma D option quiet

/*
 * A library the command needs (found before it runs, as the dynamic
 * linker will find it), with the module left out: atoi's argument.
 */
pid$target::atoi:entry
{
	printf("%s %s\n", probefunc, copyinstr(arg0));
}

pid$target::atoi:return
{
	printf("%s returned %d\n", probefunc, arg1);
}
