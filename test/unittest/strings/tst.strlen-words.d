/*
 * strlen() of strings of every length around a word's eight bytes, of a
 * string as long as strsize allows, and of a constant longer than that
 * (cut to strsize, as any string). A clause may call it many times.
 */
#pragma D option quiet
#pragma D option strsize=20

BEGIN
{
	s[0] = "";
	s[1] = "a";
	s[7] = "abcdefg";
	s[8] = "abcdefgh";
	s[9] = "abcdefghi";
	s[15] = "abcdefghijklmno";
	s[16] = "abcdefghijklmnop";
	s[17] = "abcdefghijklmnopq";
	s[20] = "abcdefghijklmnopqrstuvwxyz";
	printf("%d %d %d %d %d\n", strlen(s[0]), strlen(s[1]), strlen(s[7]),
	    strlen(s[8]), strlen(s[9]));
	printf("%d %d %d %d\n", strlen(s[15]), strlen(s[16]), strlen(s[17]),
	    strlen(s[20]));
	printf("%d\n", strlen("abcdefghijklmnopqrstuvwxyz"));
	n = 0;
	n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]);
	n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]);
	n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]);
	n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]);
	n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]); n += strlen(s[9]);
	printf("%d\n", n);
	exit(0);
}
