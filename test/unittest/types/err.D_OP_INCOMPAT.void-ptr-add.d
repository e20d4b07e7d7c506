/* A pointer to void has no size to move by: + and - refuse it. */
void *p;

BEGIN
{
	trace(p + 1);
}
