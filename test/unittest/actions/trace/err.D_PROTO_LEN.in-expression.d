/* An action in an expression still has its prototype checked first. */
BEGIN
{
	x = 1 ? printf("a") : trace();
}
