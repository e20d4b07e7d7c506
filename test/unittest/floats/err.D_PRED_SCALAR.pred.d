/* A predicate must be a scalar. */
double d;

BEGIN
/d/
{
}
