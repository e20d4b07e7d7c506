/* #pragma D error stops the compilation with its words. */
#pragma D error "not on this system" ever

BEGIN
{
	exit(0);
}
