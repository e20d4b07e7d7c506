/* A program's own pragmas may not depend on a library: only libraries do. */
#pragma D depends_on library procfs.d

BEGIN
{
	exit(0);
}
