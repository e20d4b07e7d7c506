/* The speculation rules are checked statement by statement: the error is on the aggregation's line. */
BEGIN
{
	commit(1);
	@a = count();
}
