/*
 * Only scratch space the clause allocated may be written: a store past
 * it, or anywhere else, is an invalid address (the ERROR probe fires),
 * and so is a copy into it that would overflow it.
 */
#pragma D option quiet

BEGIN
{
	p = (int *)alloca(4);
	p[2] = 1;
}

BEGIN
{
	*(int *)curthread = 1;
}

BEGIN
{
	bcopy((void *)curthread->comm, alloca(4), 16);
}

BEGIN
{
	n = 1 << 20;
	x = alloca(n);
}

ERROR
{
	printf("fault %d in action %d\n", arg4, arg2);
}

BEGIN
{
	exit(0);
}
