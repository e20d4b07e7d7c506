/*
 * alloca() gives zeroed scratch space for the clause: stores through a
 * pointer into it, compound assignments and ++ work, and it reads back.
 */
#pragma D option quiet

BEGIN
{
	p = (int *)alloca(4 * sizeof (int));
	p[0] = 7;
	p[1] = 8;
	*p += 2;
	p[1]++;
	++p[3];
	printf("%d %d %d %d\n", p[0], p[1], p[2], p[3]);
	c = (char *)alloca(3);
	c[0] = 'h';
	c[1] = 'i';
	printf("%s %d\n", stringof(c), (uintptr_t)c - (uintptr_t)p);
	exit(0);
}
