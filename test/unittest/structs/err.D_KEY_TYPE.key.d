/* A void expression cannot index an associative array. */
BEGIN
{
	a[(void)0] = 1;
}
