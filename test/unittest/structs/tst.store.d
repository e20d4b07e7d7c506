#pragma D option quiet

/* Members and elements of D variables of struct, union and array type
   are assigned to, as in DTrace: scalars, bit-fields, nested members,
   array elements (constant and computed indexes), compound assignment
   and ++; a thread-local or associative array element written in part
   is created zero-filled. */
struct s {
	int a;
	double b;
	char c[4];
	unsigned int lo : 3;
	int hi : 5;
	struct {
		short x;
	} in;
	int v[2];
};

struct s g;
int arr[4];
self struct s ts;

BEGIN
{
	g.a = 5;
	g.a += 2;
	g.c[1] = 'x';
	g.lo = 13;
	g.hi = -3;
	g.in.x = 300;
	g.in.x++;
	arr[2] = 9;
	i = 3;
	arr[i] = 10;
	printf("%d %c %d %d %d %d %d %d\n", g.a, g.c[1], g.lo, g.hi, g.in.x,
	    arr[2], arr[3], arr[0]);
	self->ts.a = 42;
	printf("%d %d\n", self->ts.a, self->ts.lo);
	this->t = g;
	this->t.a = 1;
	printf("%d %d\n", this->t.a, g.a);
	a[1] = g;
	a[1].hi = 7;
	a[2].a = 8;
	printf("%d %d %d %d\n", a[1].hi, a[1].a, a[2].a, a[3].a);
	g.v[0] = 3;
	g.v[1] = g.v[0] * 2;
	printf("%d %d\n", g.v[0], g.v[1]);
	exit(0);
}
