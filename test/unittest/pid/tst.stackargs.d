/* @@trigger: fixture pidfuncs 1 */

#pragma D option quiet

/*
 * The seventh argument of a function is on the stack: arg6 reads it.
 */
pid$target:a.out:dtt_scale:entry
{
	printf("%d %d %d %d\n", arg0, arg1, arg2, arg6);
}

pid$target:a.out:dtt_greet:entry
{
	printf("%s\n", copyinstr(arg0));
}
