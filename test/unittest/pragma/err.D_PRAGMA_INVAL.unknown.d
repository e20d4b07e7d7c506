/* A D pragma DTrace does not have. */
#pragma D frobnicate

BEGIN
{
	exit(0);
}
