/* A char array member is not a string: it cannot be assigned whole. */
struct s {
	char c[8];
	int x;
};
struct s v;

BEGIN
{
	v.c = "abc";
}
