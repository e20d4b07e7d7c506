/*
 * copyout() takes a source, an address and a size.
 */
BEGIN
{
	copyout(0, 0);
}
