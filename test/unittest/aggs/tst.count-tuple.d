#pragma D option quiet

/* count() keyed by tuples; rows sort by value, then by key. */
BEGIN
{
	@c["b", 2] = count();
	@c["a", 1] = count();
	@c["a", 1] = count();
	@c["c", 3] = count();
	@c["c", 3] = count();
	@c["c", 3] = count();
	@c["a", 9] = count();
	exit(0);
}
