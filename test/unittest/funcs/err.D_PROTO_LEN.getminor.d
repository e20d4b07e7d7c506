/*
 * getminor() takes a device number.
 */
BEGIN
{
	getminor();
}
