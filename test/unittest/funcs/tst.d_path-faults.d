#pragma D option quiet

/*
 * d_path() of a path that cannot be read (NULL, or a wild pointer) is an
 * invalid address, as any other subroutine's bad pointer is: ERROR fires
 * and tracing goes on. It used to give "/".
 */
BEGIN
{
	trace(d_path((struct path *)0));
}

BEGIN
{
	printf("%s\n", d_path((struct path *)0x1000));
}

BEGIN
{
	exit(0);
}
