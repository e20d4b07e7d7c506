/*
 * getmajor() takes a device number.
 */
BEGIN
{
	getmajor("8:1");
}
