#pragma D option quiet

/* Floating-point globals read 0 before any assignment, and print with
   every floating-point conversion. */
float f;
double d;
long double ld;

BEGIN
{
	printf("%f %e %g\n", f, f, f);
	printf("%f %E %G\n", d, d, d);
	printf("%Lf %Le %LG\n", ld, ld, ld);
	printf("%e %g\n", ld, ld);
	printf("[%10.3f] [%-10.2e] [%+g]\n", d, d, d);
	exit(0);
}
