#pragma D option quiet

/* String conversions with width and precision. */
BEGIN
{
	printf("[%s] [%10s] [%-10s] [%.3s] [%5.2s]\n", "abc", "abc", "abc", "abcdef", "xyz");
	printf("[%s]\n", probename);
	printf("[%s] [%s]\n", "", stringof("lit"));
	exit(0);
}
