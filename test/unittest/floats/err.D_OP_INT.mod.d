/* % needs integral operands. */
float f;

BEGIN
{
	f % 2;
}
