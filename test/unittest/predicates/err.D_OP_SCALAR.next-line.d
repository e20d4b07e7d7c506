/*
 * DTrace checks a predicate once it has read the token after its closing
 * slash: what it finds is reported at that token's line.
 */
BEGIN
/"char" && "foo"/
{
	exit(0);
}
