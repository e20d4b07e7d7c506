/*
 * raise() takes a signal number.
 */
BEGIN
{
	raise("SIGUSR1");
}
