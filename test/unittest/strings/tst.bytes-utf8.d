/*
 * D strings are bytes: strlen() and printf widths count bytes, escapes
 * make single bytes, and a character constant is an int made of its
 * bytes, the first most significant.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", strlen("é"), strlen("\xc3\xa9"), strlen("\xff"),
	    strlen("€uro"));
	printf("[%s] [%s] [%5s] [%-4s|]\n", "é", "\303\251", "é", "€");
	printf("%d %d %d %d\n", 'é', '\xff', sizeof('a'), 'ab');
	exit(0);
}
