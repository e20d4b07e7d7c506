/* A variable that holds a pointer takes no integer but 0. */
BEGIN
{
	x = curthread;
	x = pid;
}
