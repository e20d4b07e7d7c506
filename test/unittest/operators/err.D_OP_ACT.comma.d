/* An action is not a value the comma operator can sequence. */
BEGIN
{
	x = 1, trace(x);
}
