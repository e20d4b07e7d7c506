/* strlen( ) takes a const char *: strings and char arrays, not integers. */
BEGIN
{
	trace(strlen(42));
}
