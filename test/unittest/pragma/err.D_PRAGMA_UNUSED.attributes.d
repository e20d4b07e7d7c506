/* Attributes for an identifier the program never defines. */
#pragma D attributes Stable/Stable/Common nosuchthing

BEGIN
{
	exit(0);
}
