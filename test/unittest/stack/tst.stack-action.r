before
<frames>
after

do_syscall_64 seen
