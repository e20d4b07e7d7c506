/* An empty format prints nothing: DTrace refuses it. */
BEGIN
{
	printf("");
}
