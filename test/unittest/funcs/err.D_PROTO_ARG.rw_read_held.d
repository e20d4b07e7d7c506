/*
 * rw_read_held() takes a pointer to a kernel rwlock_t.
 */
BEGIN
{
	rw_read_held(curthread);
}
