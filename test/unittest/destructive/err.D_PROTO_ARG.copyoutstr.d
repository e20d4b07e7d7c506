/*
 * copyoutstr() writes at an address, not a string.
 */
BEGIN
{
	copyoutstr("x", "y", 1);
}
