pthread_mutex_lock mutex-acquire recursive=0 spin=0
pthread_mutex_unlock mutex-release recursive=0
pthread_mutex_lock mutex-acquire recursive=0 spin=0
pthread_mutex_lock mutex-acquire recursive=1 spin=0
pthread_mutex_unlock mutex-release recursive=1
pthread_mutex_unlock mutex-release recursive=0
pthread_mutex_lock mutex-acquire recursive=0 spin=0
pthread_mutex_lock mutex-error errno=35
pthread_mutex_unlock mutex-release recursive=0
pthread_mutex_lock mutex-acquire recursive=0 spin=0
pthread_mutex_unlock mutex-release recursive=0
pthread_rwlock_rdlock rw-acquire writer=0
pthread_rwlock_unlock rw-release writer=0
pthread_rwlock_wrlock rw-acquire writer=1
pthread_rwlock_wrlock rw-error writer=1 errno=35
pthread_rwlock_unlock rw-release writer=1

