/* offsetof of a bit-field. */
struct s { int a; int b : 4; };

BEGIN
{
	trace(offsetof(struct s, b));
}
