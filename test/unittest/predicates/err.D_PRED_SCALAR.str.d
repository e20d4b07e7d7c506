/* A predicate must be a scalar: DTrace finds it wrong as it checks the whole clause, and says so at its end. */
BEGIN
/"abc"/
{
	exit(0);
}
