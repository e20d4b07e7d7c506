/* Division by a constant zero is caught at compile time. */
BEGIN
{
	trace(1 / 0);
}
