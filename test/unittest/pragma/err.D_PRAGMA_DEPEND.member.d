/* A program that needs a member the kernel's struct does not have. */
#pragma D depends_on member task_struct.no_such_member

BEGIN
{
	exit(0);
}
