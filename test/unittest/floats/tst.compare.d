#pragma D option quiet
/* @@trigger: comm 9a9999999999f13f2b529ac4616263 */

/* Floats and doubles of one type compare as the numbers they hold, the
   negative ones too (the target's name holds the double 1.1, read also
   as two floats, the first of them negative, then the float -1234.5678). */
double zd;
float zf;

syscall::getppid:entry
/pid == $target/
{
	d = *(double *)curthread->comm;
	f1 = *(float *)curthread->comm;
	f2 = *(float *)&curthread->comm[8];
	printf("%d %d %d %d %d\n", d == d, d > zd, d < zd, zd >= zd, d != zd);
	printf("%d %d %d %d\n", f2 < zf, f2 > zf, f2 < f1, f1 <= f1);
	printf("%d %d\n", f1 < zf, zf > f2);
	exit(0);
}
