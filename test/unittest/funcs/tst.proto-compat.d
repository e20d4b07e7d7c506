#pragma D option quiet

/*
 * Arguments compatible with the prototypes: any integer for an integer
 * (char, enum, unsigned), a char array or char pointer for a const char *,
 * and the constant 0 for a pointer.
 */
enum e { TWO = 2 };

BEGIN
{
	printf("%d\n", strlen(curthread->comm) == strlen(execname));
	printf("%d\n", strlen((char *)curthread->comm) == strlen(execname));
	printf("%d %d\n", strlen("four"), strlen(""));
	c = (char)3;
	exit(c - TWO - 1);
}
