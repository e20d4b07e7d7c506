/* @@trigger: getpid 20000 */
#pragma D option quiet
#pragma D option cpcminoverflow=1000

/*
 * The minimum overflow count is an option (Solaris's dcpc-min-overflow);
 * set by a pragma, it takes effect before the program's cpc probes are
 * made, so a count below the default of 5000 is accepted.
 */
cpc:::cpu_clock-all-2000
/pid == $target/
{
	fired = 1;
}

END
{
	printf("%d\n", fired);
}
