/* stack()'s frame count is a positive constant. */
BEGIN
{
	@[stack(0)] = count();
}
