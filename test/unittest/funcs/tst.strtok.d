/*
 * strtok(): the first token of a string, then with NULL the next ones of
 * the same string (within a probe firing, across clauses), then NULL.
 */
#pragma D option quiet

BEGIN
{
	t1 = strtok("  a,b;;c ", " ,;");
	t2 = strtok(NULL, " ,;");
}

BEGIN
{
	t3 = strtok(NULL, " ,;");
	printf("[%s] [%s] [%s] %d\n", t1, t2, t3, strtok(NULL, " ,;") == NULL);
	printf("[%s] %d\n", strtok("xyz", ""), strtok(";;;", ";") == NULL);
	exit(0);
}
