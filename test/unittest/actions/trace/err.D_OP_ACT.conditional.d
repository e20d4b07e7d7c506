/* ?: chooses values, not actions. */
BEGIN
{
	x = 1;
	x ? trace(1) : trace(2);
}
