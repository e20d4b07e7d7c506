/* An action has no value to use as a key. */
BEGIN
{
	@[trace(1)] = count();
}
