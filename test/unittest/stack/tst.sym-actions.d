/*
 * sym(), func() and mod() alone in a statement are actions: each records
 * its address and prints it as trace() prints its value (an address in
 * no module as a number).
 */
#pragma D option quiet

BEGIN
{
	sym(0);
	func(0);
	mod(0);
	printf("|\n");
	exit(0);
}
