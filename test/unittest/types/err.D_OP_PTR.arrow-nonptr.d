/* -> on a value that is not a pointer. */
BEGIN
{
	x = 1;
	trace(x->y);
}
