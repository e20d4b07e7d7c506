/* Aggregation keys are integers and strings. */
double d;

BEGIN
{
	@a[d] = count();
}
