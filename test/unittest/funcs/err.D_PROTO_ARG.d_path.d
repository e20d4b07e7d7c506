/* d_path() takes a struct path pointer. */
BEGIN
{
	trace(d_path(curthread));
}
