/*
 * plockstat's probes on glibc's pthread locks, in the order the fixture
 * takes them: acquires with whether they were recursive, releases with
 * whether the mutex stays held, errors with errno (EDEADLK, 35), no
 * probe for a trylock that finds the mutex held (EBUSY), readers/writer
 * locks with whether the caller is the writer. Only the fixture's own
 * (in main): glibc takes a mutex of its own as the process exits.
 */
/* @@trigger: fixture locks */
#pragma D option quiet

pid$target:a.out:main:entry
{
	self->main = 1;
}

pid$target:a.out:main:return
{
	self->main = 0;
}

plockstat$target:::mutex-acquire
/self->main/
{
	printf("%s %s recursive=%d spin=%d\n", probefunc, probename, arg1, arg2);
}

plockstat$target:::mutex-release
/self->main/
{
	printf("%s %s recursive=%d\n", probefunc, probename, arg1);
}

plockstat$target:::mutex-error
/self->main/
{
	printf("%s %s errno=%d\n", probefunc, probename, arg1);
}

plockstat$target:::rw-acquire,
plockstat$target:::rw-release
/self->main/
{
	printf("%s %s writer=%d\n", probefunc, probename, arg1);
}

plockstat$target:::rw-error
/self->main/
{
	printf("%s %s writer=%d errno=%d\n", probefunc, probename, arg1, arg2);
}
