/*
 * system() takes a format string constant first, as printf() does.
 */
BEGIN
{
	system(1);
}
