/* A cast to void does not make an action a value. */
BEGIN
{
	(void)trace(1);
}
