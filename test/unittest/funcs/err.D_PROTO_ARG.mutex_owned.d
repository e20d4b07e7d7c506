/*
 * mutex_owned() takes a pointer to a kernel mutex.
 */
BEGIN
{
	mutex_owned(1);
}
