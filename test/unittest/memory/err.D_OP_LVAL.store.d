/*
 * Only places may be assigned: a store needs a modifiable lvalue.
 */
BEGIN
{
	x = 1; x++ = 2;
}
