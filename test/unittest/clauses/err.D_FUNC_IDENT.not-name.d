/* Only a name can be called: tick-1() calls the constant 1. */
BEGIN
{
	@ = tick-1();
	exit(0);
}
