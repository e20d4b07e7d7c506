/* A declaration is no statement: the clause stops at typedef. */
BEGIN
{
	typedef int new_int;
}
