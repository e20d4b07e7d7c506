/* A variable of a struct type needs its definition. */
struct nosuch x;

BEGIN
{
	exit(0);
}
