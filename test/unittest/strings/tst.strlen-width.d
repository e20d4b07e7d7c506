#pragma D option quiet
#pragma D option strsize=8

/* strsize bounds the strings D keeps. */
BEGIN
{
	s = "0123456789abcdef";
	printf("%s|\n", s);
	exit(0);
}
