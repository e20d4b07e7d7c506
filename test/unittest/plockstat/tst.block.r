pthread_mutex_lock mutex-block is_writer=0
pthread_mutex_lock mutex-blocked taken=1 same=1
pthread_mutex_lock mutex-acquire same=1
pthread_rwlock_rdlock rw-block is_writer=0
pthread_rwlock_rdlock rw-blocked is_writer=0 taken=1 same=1
pthread_rwlock_rdlock rw-acquire same=1

