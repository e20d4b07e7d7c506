/* An enumerator another enum already defines is a D identifier redeclared. */
enum a { ONE };
enum b { TWO, ONE };

BEGIN
{
	exit(0);
}
