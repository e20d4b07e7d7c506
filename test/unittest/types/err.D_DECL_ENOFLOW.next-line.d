/*
 * DTrace defines an enumerator when it has read the token after it: the
 * error is at that token's line.
 */
enum e {
	toobig = 2147483648
};
