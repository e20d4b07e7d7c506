/*
 * A -c command that is a script (#!/usr/bin/python3): its probes are its
 * interpreter's, the executable the kernel runs in its place.
 */
/* @@trigger: ../../fixtures/collect-script */
#pragma D option quiet

python$target:::gc-start
/arg0 == 2/
{
	printf("%s %s generation %d\n", probemod, probename, arg0);
	exit(0);
}
