/* One * for the width, at most. */
BEGIN
{
	printf("%**d\n", 1, 2, 3);
}
