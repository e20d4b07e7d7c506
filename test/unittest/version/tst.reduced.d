/*
 * A program written for D 1.0 has only the built-in identifiers D 1.0
 * had: the subroutines that came with 1.1 and later are names it may
 * give its own variables.
 */
#pragma D option version=1.0
#pragma D option quiet

int strstr;
int substr;
string inet_ntoa;

BEGIN
{
	strstr = 1;
	substr = 2;
	inet_ntoa = "three";
	printf("%d %d %s %d\n", strstr, substr, inet_ntoa, strlen("four"));
	exit(0);
}
