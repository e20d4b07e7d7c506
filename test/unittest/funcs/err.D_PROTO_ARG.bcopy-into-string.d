/* bcopy() writes to scratch memory, not to a string. */
BEGIN
{
	s = "abc";
	bcopy("xyz", s, 3);
}
