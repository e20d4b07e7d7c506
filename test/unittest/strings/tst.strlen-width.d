#pragma D option quiet
#pragma D option strsize=8

/* strsize bounds the strings D keeps: 8 characters here. */
BEGIN
{
	s = "0123456789abcdef";
	printf("%s|\n", s);
	exit(0);
}
