/*
 * A second translator between the same types is found as DTrace defines
 * it, once its definition is read: at its end.
 */
struct in { int a; };
struct out { int b; };

translator struct out < struct in *p > {
	b = p->a;
};

translator struct out < struct in *p >
{
	b = p->a;
};
