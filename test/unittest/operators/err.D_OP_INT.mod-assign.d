/* %= takes integers. */
BEGIN
{
	x = 1;
	x %= "a";
}
