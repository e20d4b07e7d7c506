/* Members are read from structs and unions only. */
double d;

BEGIN
{
	trace(d.x);
}
