/*
 * Probes a program defines with a header dtrace -h made of its provider
 * definition: each fires with its arguments where the compiler put them,
 * named provider$pid:module:function:name with a probe name's __ made -.
 * args[] have the definition's types: a string (query-start's, declared
 * so, and query-done's, a char * translated to one) is read from the
 * process; a char * is an address there (stringof() reads it).
 */
/* @@trigger: fixture usdtapp hello */
#pragma D option quiet

myserv$target:::query-start
{
	printf("%s:%s:%s %s %d %s\n", probemod, probefunc, probename,
	    copyinstr(arg0), arg1, args[0]);
}

myserv$target:::query-done
{
	printf("%s %s rows=%d elapsed=%d\n", probename, args[0], args[1],
	    args[2]);
}

myserv$target:::query-plain
{
	printf("%s %s\n", probename, stringof(args[0]));
}

myserv$target:::tick
{
	@ticks = count();
}

END
{
	printa("ticks %@d\n", @ticks);
}
