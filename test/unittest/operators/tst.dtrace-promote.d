#pragma D option quiet

/*
 * Integer arithmetic has the type DTrace gives it: the operand of
 * higher rank (its bits, and unsigned above signed), with no promotion
 * to int, and the value is recorded in that type. A shift has its left
 * operand's type; a folded constant keeps its 64 bits until it is
 * recorded.
 */
unsigned char C;
char c;
short s;
unsigned short S;

BEGIN
{
	C = 254;
	c = 3;
	s = -2;
	S = 65535;
	printf("%d %d %d\n", C + c, C * c, c - C);
	printf("%d %d\n", s + c, S + s);
	printf("%d %d\n", C << 1, -C);
	@ = sum((1 << 63) - 1);
	printf("%d %d\n", (1 << 63) - 1, sizeof (C + c));
	exit(0);
}

END
{
	printa("%@d\n", @);
}
