/*
 * alloca() gives zeroed scratch space for the clause: stores through a
 * pointer into it, compound assignments and ++ work (their address
 * evaluated once), and it reads back.
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
	/* The address of a compound store is evaluated once. */
	i = 0;
	p[i++] += 5;
	p[i++]++;
	printf("%d %d %d\n", i, p[0], p[1]);
	exit(0);
}
