/* A struct variable holds one struct type. */
struct a { int x; };
struct b { int x; };

BEGIN
{
	this->v = *(struct a *)curthread;
	this->v = *(struct b *)curthread;
}
