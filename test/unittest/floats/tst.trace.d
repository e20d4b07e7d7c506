#pragma D option quiet
/* @@trigger: comm 9a9999999999f13fcdcc8c3f */

/* trace() records a float or double as its bits and prints them as an
   integer of its size, as DTrace's consumer does; a long double, like a
   struct, as a hex dump of its bytes. */
syscall::getppid:entry
/pid == $target/
{
	trace(*(double *)curthread->comm);
	printf("\n");
	trace(*(float *)&curthread->comm[8]);
	printf("\n");
	trace(*(long double *)curthread->comm);
	exit(0);
}
