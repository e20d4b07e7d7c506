/*
 * A declaration is checked when it is parsed, as DTrace checks it: its
 * error comes before a syntax error further on.
 */
struct outer {
	struct inner i;
	int n;
};

BEGIN
/(1 != 2)
    (3 != 4)/
{
	exit(0);
}
