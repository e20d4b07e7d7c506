/*
 * Python's own static probes, from the notes Debian's python3 is built
 * with: a full collection fires gc-start and gc-done, whose semaphores
 * Python tests before it fires them. (It collects again as it exits:
 * the first is enough.)
 */
/* @@trigger: /usr/bin/python3 ../../fixtures/collect.py */
#pragma D option quiet

python$target:::gc-start
/arg0 == 2/
{
	self->full = 1;
	printf("%s %s generation %d\n", probemod, probename, arg0);
}

python$target:::gc-done
/self->full/
{
	printf("%s\n", probename);
	exit(0);
}
