/* A .* precision takes an integer. */
BEGIN
{
	printf("%.*s\n", "three", "abcdef");
}
