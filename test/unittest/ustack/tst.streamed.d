/*
 * An aggregation keyed by a user stack is kept by the consumer, each
 * update a record that it unwinds and folds: every aggregating function
 * folds as it does in the kernel, another key may stand beside the
 * stack, trunc() and clear() act on the consumer's rows, and printa()
 * prints them as it prints any aggregation. The post-processor drops
 * the frame's offset, which depends on the compiler.
 */
/* @@trigger: fixture frames */
#pragma D option quiet

BEGIN
{
	n = 0;
}

frames$target:::here
{
	n++;
	@c[ustack(1)] = count();
	@s[ustack(1)] = sum(n);
	@mn[ustack(1)] = min(n);
	@mx[ustack(1)] = max(n);
	@a[ustack(1)] = avg(n);
	@sd[ustack(1)] = stddev(n * 10);
	@q[ustack(1)] = quantize(n);
	@l[ustack(1)] = lquantize(n, 0, 4, 1);
	@k[n, ustack(1)] = sum(n);
}

END
{
	printa(@c);
	printa(@s);
	printa(@mn);
	printa(@mx);
	printa(@a);
	printa(@sd);
	printa(@q);
	printa(@l);
	trunc(@k, 2);
	printa(@k);
	clear(@c);
	printa(@c);
}
