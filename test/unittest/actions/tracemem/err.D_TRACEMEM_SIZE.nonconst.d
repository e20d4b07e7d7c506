/* tracemem()'s size is a constant. */
BEGIN
{
	tracemem(curthread, timestamp);
}
