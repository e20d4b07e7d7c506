/* Each conversion of a printa() format but %@ takes a key. */
BEGIN
{
	@ = count();
	printa("%d %@d\n", @);
}
