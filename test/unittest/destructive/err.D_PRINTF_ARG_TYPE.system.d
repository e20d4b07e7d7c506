/*
 * system() checks its arguments against its format, as printf() does.
 */
BEGIN
{
	system("%d", "x");
}
