/* An element of an array member is stored through a pointer to scratch memory. */
#pragma D option quiet

struct s {
	int a;
	char b[4];
};

BEGIN
{
	t = (struct s *)alloca(sizeof (struct s));
	t->b[0] = 0x41, t->b[1] = 0x42, t->b[2] = 0;
	t->a = 3;
	printf("%d %s\n", t->a, stringof(t->b));
	exit(0);
}
