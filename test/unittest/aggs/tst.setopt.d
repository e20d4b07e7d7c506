#pragma D option quiet

/*
 * setopt() sets an option as its record is processed: aggsortrev orders
 * the printing at exit. An option that is no option is a library error
 * on the probe, and tracing goes on.
 */
BEGIN
{
	@c["a"] = sum(1);
	@c["b"] = sum(2);
	@c["c"] = sum(3);
	setopt("aggsortrev");
	setopt("nosuchoption", "1");
	setopt("bufsize", "1m");
	printf("still tracing\n");
	exit(0);
}
