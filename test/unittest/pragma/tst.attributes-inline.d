/* Attributes for an inline the program defines. */
#pragma D option quiet

inline int answer = 42;
#pragma D attributes Stable/Stable/Common answer

BEGIN
{
	printf("%d\n", answer);
	exit(0);
}
