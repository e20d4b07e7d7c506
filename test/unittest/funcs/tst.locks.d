/*
 * The lock subroutines read a kernel mutex's owner word and a queued
 * rwlock's count, as Linux lays them out (offsets from BTF); here on
 * copies built in scratch space, so the states are known. Every Linux
 * mutex is adaptive.
 */
#pragma D option quiet

BEGIN
{
	m = (struct mutex *)alloca(sizeof (struct mutex));
	printf("%d %d %d %d\n", mutex_owned(m), mutex_owner(m) == NULL,
	    mutex_type_adaptive(m), mutex_type_spin(m));
	*(uint64_t *)((uintptr_t)m + offsetof(struct mutex, owner)) =
	    (uint64_t)curthread | 1;
	printf("%d %d %d\n", mutex_owned(m), mutex_owner(m) == curthread,
	    mutex_owner(m)->pid == pid);
	rw = (rwlock_t *)alloca(sizeof (rwlock_t));
	printf("%d %d %d\n", rw_read_held(rw), rw_write_held(rw), rw_iswriter(rw));
	*(uint32_t *)rw = 0xff;
	printf("%d %d %d\n", rw_read_held(rw), rw_write_held(rw), rw_iswriter(rw));
	*(uint32_t *)rw = 0x400;
	printf("%d %d %d\n", rw_read_held(rw), rw_write_held(rw), rw_iswriter(rw));
	*(uint32_t *)rw = 0x300;
	printf("%d %d %d\n", rw_read_held(rw), rw_write_held(rw), rw_iswriter(rw));
	exit(0);
}
