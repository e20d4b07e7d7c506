/* A double does not convert to an integer in D. */
double d;

BEGIN
{
	trace((int)d);
}
