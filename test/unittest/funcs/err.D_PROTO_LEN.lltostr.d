/* lltostr() takes one integer. */
BEGIN
{
	trace(lltostr());
}
