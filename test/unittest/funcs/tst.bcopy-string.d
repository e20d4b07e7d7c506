/* A string is a char array: bcopy() reads it where void * is asked. */
#pragma D option quiet

BEGIN
{
	s = (char *)alloca(16);
	bcopy(probename, s, 6);
	bcopy("ab", s + 5, 3);
	printf("%s\n", stringof(s));
	exit(0);
}
