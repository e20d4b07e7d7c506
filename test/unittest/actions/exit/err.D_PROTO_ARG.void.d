/* An action used as an argument is a void value. */
BEGIN
{
	exit(exit(0));
}
