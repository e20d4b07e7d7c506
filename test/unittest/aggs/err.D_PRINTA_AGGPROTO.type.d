/* ...and their types. */
BEGIN
{
	@a[1] = count();
	@b["one"] = count();
	printa("%d %@d %@d\n", @a, @b);
}
