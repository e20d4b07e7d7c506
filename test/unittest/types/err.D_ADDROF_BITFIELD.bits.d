/* A bit-field has no address. */
struct s { int a : 3; };

BEGIN
{
	trace(&((struct s *)0)->a);
}
