#pragma D option quiet
/* @@trigger: comm c976be9f0c24fec02b529ac4616263 */

/* Floats and doubles read from memory the test controls (the target's
   name: a double -123456.789, a float -1234.5678, then "abc"), stored in
   variables of each scope, assigned and printed. */
double d;

syscall::getppid:entry
/pid == $target/
{
	d = *(double *)curthread->comm;
	self->f = *(float *)&curthread->comm[8];
	this->d = d;
	a[1] = self->f;
	printf("%f %e %g\n", d, d, d);
	printf("%.2f %.3E %G\n", self->f, self->f, self->f);
	printf("%f %f\n", this->d, a[1]);
	printf("%f\n", a[2]);
	printf("[%12.1f] [%-12.1f] [%012.1f]\n", self->f, self->f, self->f);
	exit(0);
}
