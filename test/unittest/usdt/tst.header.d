/*
 * Probes a program defines with a header dtrace -h made of its provider
 * definition: each fires with its arguments where the compiler put them,
 * named provider$pid:module:function:name with a probe name's __ made -.
 * args[] have the definition's types: args[0] is a char * in the process.
 */
/* @@trigger: fixture usdtapp hello */
#pragma D option quiet

myserv$target:::query-start
{
	printf("%s:%s:%s %s %d\n", probemod, probefunc, probename,
	    copyinstr(arg0), arg1);
}

myserv$target:::query-done
{
	printf("%s %s rows=%d elapsed=%d\n", probename, stringof(args[0]),
	    args[1], args[2]);
}

myserv$target:::tick
{
	@ticks = count();
}

END
{
	printa("ticks %@d\n", @ticks);
}
