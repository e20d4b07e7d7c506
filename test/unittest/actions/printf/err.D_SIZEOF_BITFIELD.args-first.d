/*
 * printf()'s arguments are checked before its format: the bit-field's
 * sizeof is refused, not the undefined conversion.
 */
struct s { int a : 3; } v;

BEGIN
{
	printf("%n\n", sizeof(v.a));
}
