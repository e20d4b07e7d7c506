/* The optional second argument of copyinstr( ) is a size_t. */
BEGIN
{
	trace(copyinstr(arg0, "x"));
}
