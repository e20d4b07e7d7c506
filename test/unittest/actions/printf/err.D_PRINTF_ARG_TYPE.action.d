/* An action has no value to print. */
BEGIN
{
	printf("%d\n", trace(1));
}
