/*
 * An enumerator named twice in one enum: the type refuses it, and DTrace
 * passes the type library's word on.
 */
enum colour {
	RED,
	GREEN,
	GREEN = 2
};

BEGIN
{
	exit(0);
}
