/*
 * strchr() and strrchr(): the rest of the string from the first (last)
 * place of a character, the empty end for '\0', NULL where it is not.
 */
#pragma D option quiet

BEGIN
{
	str = "fooeyfooeyfoo";
	printf("[%s] [%s]\n", strchr(str, 'y'), strrchr(str, 'y'));
	printf("[%s] [%s]\n", strchr(str, 'f'), strrchr(str, 'f'));
	printf("[%s] [%s]\n", strchr(str, '\0'), strrchr(strchr(str, 'y'), 'e'));
	printf("%d %d %d\n", strchr(str, 'a') == NULL, strrchr(str, 'a') != NULL,
	    strchr(str, 'o') == NULL);
	exit(0);
}
