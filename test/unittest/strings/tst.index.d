/*
 * A string is an array of char: s[i] is its ith character, and s + n
 * (or n + s) the string from n characters in, n clamped to the string's
 * size.
 */
#pragma D option quiet

BEGIN
{
	s = "ABCDEFG";
	this->s = "xyz";
	self->s = "hello";
	a["k"] = "world";
	i = 2;
	printf("%c %c %c %c %c\n", s[1], this->s[i], self->s[4], a["k"][0], s[i + 1]);
	printf("%s|%s|%s|%s|%s\n", s + 2, 1 + this->s, self->s + i, a["k"] + 5, s + 1000);
	printf("%s\n", s - 1);
	exit(0);
}
