/* tracemem()'s size is a size_t, by its prototype, before it must be a constant. */
BEGIN
{
	tracemem(0, "eight");
}
