/*
 * The metrics endpoint (-x metrics) answers while tracing runs, with what
 * the kernel holds at that moment: the target makes three getppid calls
 * in a python3 process, then scrapes dtrace's /metrics and prints the
 * lines of this program's aggregations; dtrace prints them at exit too.
 */
/* @@runtest-opts: -x metrics=127.0.0.1:19464 -x metriclabels=@calls:syscall */
/* @@trigger: sh metrics.sh 19464 */

#pragma D option quiet

syscall::getppid:entry
/progenyof($target) && execname == "python3"/
{
	@calls[probefunc] = count();
	@size["read"] = quantize(100);
	@depth = lquantize(3, 0, 10, 5);
}
