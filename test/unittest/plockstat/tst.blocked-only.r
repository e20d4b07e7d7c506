pthread_mutex_lock mutex-blocked taken=1
pthread_rwlock_rdlock rw-blocked is_writer=0 taken=1

