#pragma D option quiet
#pragma D option scratchsize=100

/*
 * scratchsize is what one clause may allocate (rounded up to 8): all
 * of it at once, or in parts, and a clause asking for more at run time
 * is out of scratch space. Each clause starts with it all again.
 */
BEGIN
{
	p = (char *)alloca(104);
	p[103] = 7;
	printf("%d\n", p[103]);
}

BEGIN
{
	a = alloca(50);
	b = alloca(48);
	printf("%d\n", (uintptr_t)b - (uintptr_t)a);
	n = 8;
	c = alloca(n);
}

ERROR
{
	printf("fault %d\n", arg4);
	exit(0);
}
