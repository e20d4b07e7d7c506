/* A #pragma line may stand among a clause's statements; options apply to the program. */
BEGIN
{
#pragma D option quiet
	printf("no header\n");
	exit(0);
}
