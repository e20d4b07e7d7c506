/* normalize()'s factor is an integer (its prototype's uint64_t). */
BEGIN
{
	@a = count();
	normalize(@a, "ten");
}
