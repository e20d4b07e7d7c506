/* -> on a pointer to something that is not a struct or union. */
BEGIN
{
	trace(((int *)0)->x);
}
