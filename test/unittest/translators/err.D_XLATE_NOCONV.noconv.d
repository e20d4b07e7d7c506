/* The translator does not define every member. */
struct out { int a; int b; };

translator struct out < int x > {
	a = x;
};

BEGIN
{
	trace(xlate<struct out>(1).b);
}
