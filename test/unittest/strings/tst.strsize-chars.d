#pragma D option quiet
#pragma D option strsize=5

/*
 * A string holds strsize characters: constants, built-in names,
 * variables of every kind and what subroutines make are cut there.
 */
BEGIN
{
	g = "abcdefgh";
	this->l = "abcdefgh";
	self->t = "abcdefgh";
	a[1] = "abcdefgh";
	printf("%s %s %s %s %s\n", "abcdefgh", g, this->l, self->t, a[1]);
	printf("%s %s %s\n", probeprov, lltostr(1234567), lltostr(-1234567));
	printf("%d %d\n", strlen(g), strlen(lltostr(12)));
	exit(0);
}
