/*
 * A translator's input written in braces begins a definition of its
 * output struct, which the program has defined already.
 */
struct in { int i; };
struct out { int o; };

translator struct out
{
	struct in *p
}
{
	o = p->i;
};
