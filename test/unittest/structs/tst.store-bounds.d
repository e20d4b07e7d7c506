#pragma D option quiet

/* An element stored past the end of a D array variable faults with
   "invalid address" (of the offset), and tracing goes on. */
int arr[4];

BEGIN
{
	i = 4;
	arr[i] = 1;
}

BEGIN
{
	printf("%d\n", arr[0]);
	exit(0);
}
