#pragma D option quiet

/* An array converts to a pointer as its address; a char array is read as
   a string elsewhere. */
BEGIN
{
	printf("%d %d\n", stringof((char *)curthread->comm) == execname,
	    (uint64_t)curthread->comm == (uint64_t)&curthread->comm[0]);
	exit(0);
}
