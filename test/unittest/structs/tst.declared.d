#pragma D option quiet
/* @@trigger: comm 9a9999999999f13fcdcc8c3f616263 */

/* Structs and unions the program declares, read from memory the test
   controls (the target's name: a double 1.1, a float 1.1, "abc"): members
   of every kind, including bit-fields, and trace() of the whole value as
   a hex dump. */
struct s {
	double d;
	float f;
	char c[3];
};

union u {
	double d;
	uint64_t i;
	unsigned char b[8];
};

struct bits {
	uint64_t pad;
	unsigned int lo : 4;
	unsigned int hi : 4;
	int rest : 24;
};

syscall::getppid:entry
/pid == $target/
{
	s = *(struct s *)curthread->comm;
	self->u = *(union u *)curthread->comm;
	this->b = *(struct bits *)curthread->comm;
	printf("%f %f %s %d\n", s.d, s.f, s.c, sizeof (s));
	printf("%x %e %x %x\n", self->u.i, self->u.d, self->u.b[0], self->u.b[7]);
	printf("%x %x %d\n", this->b.lo, this->b.hi, this->b.rest);
	trace(s);
	trace(self->u);
	exit(0);
}
