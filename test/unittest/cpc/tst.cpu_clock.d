/* @@trigger: getpid 3000000 */
#pragma D option quiet

/*
 * A software counter probe, made on demand: cpu_clock in both modes,
 * firing every 100000 ns of CPU time, fires while the target runs;
 * arg0 or arg1 is the PC, the other 0.
 */
cpc:::cpu_clock-all-100000
/pid == $target/
{
	fired = 1;
	pcs = (arg0 != 0) != (arg1 != 0);
}

END
{
	printf("%d %d\n", fired, pcs);
}
