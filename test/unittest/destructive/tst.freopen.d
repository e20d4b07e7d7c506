/*
 * freopen() sends later output to the file it names (appending), and
 * freopen("") back to dtrace's own output; ftruncate() empties the file
 * output is going to.
 */
/* @@runtest-opts: -w */
#pragma D option quiet

BEGIN
{
	system("rm -f /tmp/dtrace-test-freopen.out");
	freopen("/tmp/dtrace-test-freopen.out");
	printf("lost\n");
	ftruncate();
	printf("kept\n");
	freopen("");
	printf("back\n");
	system("cat /tmp/dtrace-test-freopen.out; rm -f /tmp/dtrace-test-freopen.out");
	exit(0);
}
