/* Attributes that are not stability/stability/class. */
#pragma D attributes Solid/Stable/Common x

BEGIN
{
	exit(0);
}
