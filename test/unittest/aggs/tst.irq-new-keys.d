/*
 * A tick probe (a timer interrupt) adding a new key to several
 * aggregations and dynamic variables in one firing loses none of them.
 */
#pragma D option quiet
/* One CPU: the counter is a global, stepped by one firing at a time. */
#pragma D option cpu=0

int i;

tick-1ms
/i < 50/
{
	@a[i % 5] = count();
	@b[i % 5] = count();
	@c[i] = count();
	x[i] = i;
	self->y[i] = i;
	i++;
}

tick-1ms
/i == 50/
{
	printf("%d %d\n", x[49], self->y[49]);
	exit(0);
}

END
{
	printa("%d %@d %@d\n", @a, @b);
	printa(" %d:%@d", @c);
}
