/*
 * Structs, unions and arrays index associative arrays by their bytes:
 * equal values find the same element, whichever variable holds them.
 */

#pragma D option quiet
struct point { int x; int y; };
union u { int i; char c[8]; };
struct point p, q;
union u w;
int v[3];

BEGIN
{
	p.x = 1; p.y = 2;
	q.x = 1; q.y = 3;
	a[p] = 10;
	a[q] = 20;
	p.y = 3;
	printf("%d %d\n", a[p], a[q]);
	q.x = 7;
	printf("%d\n", a[q]);

	b[p, "x"] = 5;
	this->p = p;
	printf("%d %d\n", b[this->p, "x"], b[p, "y"]);

	w.i = 42;
	c[w] = 1;
	this->w = w;
	printf("%d\n", c[this->w]);

	v[1] = 9;
	self->d[v] = 3;
	printf("%d\n", self->d[v]);
	exit(0);
}
