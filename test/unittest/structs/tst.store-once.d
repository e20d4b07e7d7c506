/*
 * A compound assignment or increment of an element evaluates its index
 * once.
 */

#pragma D option quiet

struct s {
	int a[4];
	int b : 3;
};
struct s v;

BEGIN
{
	i = 1;
	v.a[i++] += 3;
	v.a[i++]++;
	++v.a[i++];
	v.b = 2;
	v.b += 3;
	v.b++;
	this->t = v;
	this->t.a[i - 2] -= 5;
	printf("%d %d %d %d %d %d %d\n", v.a[1], v.a[2], v.a[3], i, v.b, v.a[0],
	    this->t.a[2]);
	exit(0);
}
