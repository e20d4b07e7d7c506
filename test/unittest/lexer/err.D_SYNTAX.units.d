/* A constant ends at its last digit (and suffix): 10ms is 10 and then ms. */
BEGIN
{
	x = 10ms;
}
