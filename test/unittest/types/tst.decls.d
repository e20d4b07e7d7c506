#pragma D option quiet

/* typedef, inline, enums and NULL. */
typedef unsigned char byte_t;
typedef struct point { int x; int y; } point_t;
enum dir { NORTH, EAST = 90, SOUTH = 180, WEST = 270 };
inline int TWICE = 2 * 21;
inline string NAME = "decl";
inline enum dir FACING = WEST;

BEGIN
{
	printf("%d %d %d\n", sizeof (byte_t), sizeof (point_t), sizeof (point_t *));
	printf("%d %d %d %d\n", NORTH, EAST, SOUTH + 1, FACING);
	printf("%d %s %d\n", TWICE, NAME, NULL == 0);
	printf("%d\n", offsetof(point_t, y));
	x = (byte_t)257;
	printf("%d\n", x);
	exit(0);
}
