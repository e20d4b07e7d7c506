/*
 * A ustack() key is of DTrace's type stack, as stack()'s is.
 */
BEGIN
{
	@[ustack()] = count();
	printa("%d %@d\n", @);
}
