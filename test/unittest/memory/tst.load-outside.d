#pragma D option quiet

/*
 * A load through a pointer into a clause's scratch memory must fall in
 * what the clause allocated: before its first byte, past its last
 * (alloca(15) allocates 16), or in what an earlier clause allocated
 * is an invalid address, as DTrace checks a load from scratch.
 */
BEGIN
{
	s = (char *)alloca(15);
	s[15] = 'x';
	printf("%c\n", s[15]);
}

BEGIN
{
	s = (char *)alloca(15);
	trace(s[-1]);
}

BEGIN
{
	s = (char *)alloca(15);
	trace(s[16]);
}

BEGIN
{
	trace(*s);
}

ERROR
{
	printf("fault %d in clause %d\n", arg4, arg1);
}

BEGIN
{
	exit(0);
}
