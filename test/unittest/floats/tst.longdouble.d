#pragma D option quiet
/* @@trigger: comm cdcccccccccccc8cff3f */

/* A long double (x86 80-bit extended precision: 1.1) read from memory
   the test controls, stored and printed; it is handled by reference. */
syscall::getppid:entry
/pid == $target/
{
	this->ld = *(long double *)curthread->comm;
	self->ld = this->ld;
	printf("%Lf %Le %Lg %LG\n", this->ld, this->ld, this->ld, self->ld);
	printf("%f %d\n", self->ld, sizeof (self->ld));
	exit(0);
}
