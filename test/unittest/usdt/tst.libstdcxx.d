/*
 * libstdc++'s own static probes (its stapsdt notes): a C++ program that
 * throws and catches three exceptions fires throw and catch three times
 * each, in the library's module.
 */
/* @@trigger: fixture thrower */
#pragma D option quiet

libstdcxx$target:::throw,
libstdcxx$target:::catch
{
	@[probemod, probename] = count();
}

END
{
	printa("%s %s %@d\n", @);
}
