/*
 * strstr(): the rest of the string from the first place of another, the
 * whole string for "", NULL where it is not.
 */
#pragma D option quiet

BEGIN
{
	str = "fooeyfooeyfoo";
	printf("[%s] [%s] [%s]\n", strstr(str, "eyf"), strstr(str, "foo"), strstr(str, ""));
	printf("[%s] %d %d\n", strstr("", ""), strstr(str, "fooz") == NULL,
	    strstr(str, "oo") != NULL);
	exit(0);
}
