/*
 * An enumerator's value may name the enumerators before it in its enum;
 * the program's own types are also named in DTrace's D container
 * (struct D`s).
 */
#pragma D option quiet

enum colour {
	RED,
	ORANGE = 5 + 5,
	YELLOW = 2,
	GREEN,
	BLUE = GREEN + ORANGE,
	INDIGO = -2,
	VIOLET
};

struct s {
	int x;
	int y;
};

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", RED, ORANGE, YELLOW, GREEN, BLUE, INDIGO, VIOLET);
	printf("%d %d\n", offsetof(struct D`s, y), sizeof(struct D`s));
	exit(0);
}
