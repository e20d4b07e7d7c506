/*
 * Translated data is named as DTrace names it in a cast it cannot
 * make, on the line where the cast's operand ends.
 */
struct in { int ii; };
struct out { int oi; };
translator struct out < struct in *i > { oi = i->ii; };
struct in *f;

BEGIN
{
	x = (uintptr_t)xlate<struct out *>(f)
}
