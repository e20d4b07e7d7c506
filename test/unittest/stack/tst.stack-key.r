

<frames>
                7
do_syscall_64 seen
