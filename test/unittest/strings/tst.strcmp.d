#pragma D option quiet

/* Strings compare by content, byte by byte. */
BEGIN
{
	a = "abc";
	b = "abd";
	printf("%d %d %d %d\n", a == "abc", a != b, a < b, b > a);
	printf("%d %d %d\n", "" < "a", "ab" < "abc", a >= "abc");
	printf("%d\n", execname == "dtrace");
	exit(0);
}
