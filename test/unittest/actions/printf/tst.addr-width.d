/* %? is the width of a pointer printed in hex: 16 here. */
#pragma D option quiet

BEGIN
{
	printf("[%?d]\n[%-?d]\n", 42, 42);
	exit(0);
}
