#pragma D option quiet

/*
 * Aggregation keys of any type: a struct is keyed by its bytes and
 * printed as DTrace prints bytes (a string when they hold one, else a hex
 * dump); stack(), sym() and mod() keys are in test/unittest/stack.
 */
struct k {
	char name[8];
};

struct k a;
struct k b;

BEGIN
{
	a.name[0] = 120;
	b.name[0] = 1;
	@[a] = count();
	@[a] = count();
	@[b] = count();
	exit(0);
}
