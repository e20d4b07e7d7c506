#pragma D option quiet

/*
 * Associative arrays whose keys are larger than the kernel's hash keys
 * allow (three strings at the default strsize, 768 bytes; a thread's
 * array with its id too): elements are stored, read, updated and
 * deleted as any other, and a deleted key can be stored again.
 */

BEGIN
{
	a = "first";
	b = "second";
	c = "third";
	x[a, b, c] = 1;
	x[c, b, a] = 2;
	x[a, b, c] += 10;
	self->t[a, b, c, 4] = 7;
	printf("%d %d %d %d\n", x[a, b, c], x[c, b, a], x[a, a, a],
	    self->t[a, b, c, 4]);
	x[a, b, c] = 0;
	printf("%d %d\n", x[a, b, c], x[c, b, a]);
	x[a, b, c] = 3;
	x[c, b, a]++;
	self->t[a, b, c, 4] = 0;
	printf("%d %d %d\n", x[a, b, c], x[c, b, a], self->t[a, b, c, 4]);
	s[a, b, c] = "a string value";
	printf("%s\n", s[a, b, c]);
	i = 0;
	n = 0;
}

/* Many keys stored and deleted again: the keys go with their elements. */
tick-1ms
/i < 2400/
{
	y[a, b, lltostr(i)] = i + 1;
	y[a, b, lltostr(i)] = 0;
	y[a, b, lltostr(i)] = i + 2;
	n += y[a, b, lltostr(i)] == i + 2;
	y[a, b, lltostr(i)] = 0;
	i++;
}

tick-1ms
/i < 2400/
{
	y[a, b, lltostr(i)] = i + 1;
	n += y[a, b, lltostr(i)] == i + 1;
	y[a, b, lltostr(i)] = 0;
	i++;
}

tick-1ms
/i >= 2400/
{
	printf("%d\n", n);
	exit(0);
}
